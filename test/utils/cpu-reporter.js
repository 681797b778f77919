/**
 * Jest reporter, on when CPU_REPORT names a file (jest.config.js; .ci/run sets it): the CPU seconds
 * each test file cost, as one JSON line per file (in band; with workers a file's figure also holds its
 * neighbours', and the closing `run` line is the total): Jest's own process and every
 * process below it (spawned services, the embedded PostgreSQL and its backends while they live;
 * children already reaped count through the parent's cutime/cstime). Linux only (/proc). It is how
 * to find what makes CI long: `.ci/run` prints the heaviest files after the whole suite.
 */
const fs = require('fs');
const TICK = 100; // USER_HZ
function stat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: +f[1], cpu: (+f[11] + +f[12] + +f[13] + +f[14]) / TICK };
  } catch { return null; }
}
function treeCpu(root) {
  const kids = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = stat(d); if (!s) continue;
    if (!kids.has(s.ppid)) kids.set(s.ppid, []);
    kids.get(s.ppid).push([+d, s.cpu]);
  }
  let total = stat(root).cpu; const stack = [root];
  while (stack.length) { const p = stack.pop(); for (const [c, cpu] of kids.get(p) || []) { total += cpu; stack.push(c); } }
  return total;
}
function selfCpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }
class CpuReporter {
  constructor() { this.out = process.env.CPU_REPORT; this.start = new Map(); }
  onRunStart() { this.run = [treeCpu(process.pid), Date.now()]; }
  // The whole run, one line: with several workers the files overlap, so each file's figure also holds
  // what ran beside it; the run's total is what the machine spent.
  onRunComplete() {
    const [c0, t0] = this.run || [0, Date.now()];
    fs.appendFileSync(this.out, JSON.stringify({ run: true, cpu: +(treeCpu(process.pid) - c0).toFixed(2), wall: (Date.now() - t0) / 1000 }) + '\n');
  }
  onTestStart(test) { this.start.set(test.path, [treeCpu(process.pid), Date.now(), selfCpu()]); }
  onTestResult(test) {
    const [c0, t0, s0] = this.start.get(test.path) || [0, Date.now(), 0];
    fs.appendFileSync(this.out, JSON.stringify({ file: test.path, cpu: +(treeCpu(process.pid) - c0).toFixed(2), jest: +(selfCpu() - s0).toFixed(2), wall: (Date.now() - t0) / 1000 }) + '\n');
  }
}
module.exports = CpuReporter;

// `node test/utils/cpu-reporter.js <file> [top]`: the total and the heaviest files of a report.
if (require.main === module) {
  const [file, top = '15'] = process.argv.slice(2);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const rows = lines.filter((line) => !line.run);
  const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
  console.log(`${rows.length} files: ${sum('cpu').toFixed(0)} CPU-s (Jest's process ${sum('jest').toFixed(0)}), ${sum('wall').toFixed(0)} s wall`);
  // One line per Jest run (CI: the `rest` run with four workers, then `timing` in band): whole-run CPU and wall.
  for (const run of lines.filter((line) => line.run)) console.log(`run: ${run.cpu.toFixed(0)} CPU-s in ${run.wall.toFixed(0)} s wall (${(run.cpu / run.wall).toFixed(2)} cores)`);
  for (const row of rows.sort((a, b) => b.cpu - a.cpu).slice(0, Number(top))) {
    console.log(`${row.cpu.toFixed(1).padStart(7)} CPU-s ${row.wall.toFixed(1).padStart(7)} s  ${row.file.replace(/^.*?\/(test|src)\//, '$1/')}`);
  }
}
