/**
 * `npm run bench [-- --existing N]`: the service as production runs it (`node dist/main.js` with `npm start`'s flags, built
 * first) on a fresh database, loaded from this process, against raw `pg` baselines in the same run.
 * Progress goes to stderr; the one line on stdout is a JSON object (bench/README.md says what each
 * key means). Exits 1 if any request was answered 5xx.
 *
 * The harness (bench/harness) starts the database, makes the fixtures, starts the service and
 * measures; each scenario (bench/scenarios, in the order of scenarios/index.ts) is a file of its own.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { PROJECT_ROOT } from '../src/database/project-root';
import { freshDatabase, keptState, serverVersion } from './harness/database';
import { log, round, type Measured } from './harness/figures';
import { loadExisting, makeFixtures, type Fixtures } from './harness/fixtures';
import { benchContext, type BenchContext, type Phase, type Scenario, type ScenarioResult } from './harness/scenario';
import { startService, type Service } from './harness/service';
import { readSettings, SettingError, type BenchSettings } from './harness/settings';
import { StatementStats } from './harness/statement-stats';
import { SCENARIOS } from './scenarios';
import { tracingComparison } from './tracing-comparison';

async function main(): Promise<void> {
  const settings = readSettings();
  if (!settings.tracing.on) {
    const unknown = [...settings.only].filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
    if (unknown.length > 0) throw new SettingError(`BENCH_ONLY: no scenario ${unknown.join(', ')} (scenarios: ${SCENARIOS.map((s) => s.name).join(', ')})`);
  }
  if (!settings.skipBuild) {
    log('building (npm run build)');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  }
  const kept = keptState(settings);
  const db = await freshDatabase(settings);
  let stats: StatementStats, fx: Fixtures, postgres: string, service: Service;
  try {
    stats = await StatementStats.open(db.url);
    fx = kept.state.fixtures?.adminKey ? kept.state.fixtures : await makeFixtures(db.url, 'Bench', kept.state.fixtures);
    kept.state.fixtures = fx;
    kept.save();
    postgres = await serverVersion(db.url);
    service = await startService(settings, db.url);
  } catch (error) {
    await db.stop();
    throw error;
  }
  const result: Record<string, unknown> = {
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, postgres },
    settings: {
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
      batchConnections: settings.batchConnections,
      singleConnections: settings.singleConnections,
    },
  };
  let failed5xx: number;
  try {
    const ctx = benchContext({ settings, url: db.url, service, stats, fx, kept });
    if (settings.tracing.on) {
      const comparison = await tracingComparison(ctx);
      result.tracing = comparison.report;
      failed5xx = comparison.status5xx;
    } else {
      failed5xx = await runScenarios(settings, ctx, result);
      result.peakRssMiB = service.peakRssMiB();
    }
    result.responses5xx = failed5xx;
  } finally {
    await service.stop();
    await stats.close();
    await db.stop();
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = failed5xx > 0 ? 1 : 0;
}

/** Runs the wanted scenarios of both phases into `result`; answers how many responses were 5xx. */
async function runScenarios(settings: BenchSettings, ctx: BenchContext, result: Record<string, unknown>): Promise<number> {
  const wanted = (scenario: Scenario, phase: Phase) => scenario.phases.includes(phase) && (settings.only.size === 0 || settings.only.has(scenario.name));
  let failed5xx = 0;
  const runPhase = async (phase: Phase) => {
    const listed: Measured[] = [];
    const unlisted: Measured[] = [];
    for (const scenario of SCENARIOS.filter((s) => wanted(s, phase))) {
      const out: ScenarioResult = await scenario.run(ctx, phase);
      listed.push(...(out.listed ?? []));
      unlisted.push(...(out.unlisted ?? []));
      if (out.report !== undefined) result[scenario.name] = out.report;
      failed5xx += out.status5xx ?? 0;
    }
    failed5xx += [...listed, ...unlisted].reduce((sum, run) => sum + run.status5xx, 0);
    return { listed, unlisted };
  };

  const empty = await runPhase('empty');
  const by = (name: string) => [...empty.listed, ...empty.unlisted].find((run) => run.name === name);
  const ratio = (a: string, b: string) => {
    const x = by(a);
    const y = by(b);
    return x && y ? round(x.perSecond / y.perSecond, 3) : null;
  };
  const cold = by('coldFirst5s');
  const steady = by('singleCreate');
  if (cold && steady) {
    result.coldStart = {
      secondsToReady: ctx.service.secondsToReady,
      first5s: { rps: cold.perSecond, p99: cold.p99 },
      steady: { rps: steady.perSecond, p99: steady.p99 },
      rateRatio: round(cold.perSecond / steady.perSecond, 2),
      p99Ratio: round(cold.p99 / steady.p99, 2),
    };
  }
  result.scenarios = Object.fromEntries(empty.listed.map((run) => [run.name, run]));
  result.ratioToRaw = ratio('batchCreate', 'rawBatch');
  result.ratioToRawSameWork = ratio('batchCreate', 'rawBatchSameWork');
  result.webhookRatio = ratio('batchCreateWithWebhook', 'batchCreate');
  result.singleRatioToRaw = ratio('singleCreate', 'rawSingle');
  const imported = result.import1M as { contactsPerSecond: number; importVsBatchCreate: number | null } | undefined;
  const batchCreated = by('batchCreate');
  if (imported && batchCreated) imported.importVsBatchCreate = round(imported.contactsPerSecond / batchCreated.perSecond, 3);

  if (settings.existing > 0) {
    const { state, save } = ctx.kept;
    if (state.existing === settings.existing) {
      log(`reusing the ${settings.existing} existing contacts of ${settings.dataDir}`);
    } else {
      if (state.existing !== undefined) throw new Error(`${settings.dataDir} holds ${state.existing} existing contacts, not ${settings.existing}`);
      log(`loading ${settings.existing} existing contacts (set-based)`);
      await loadExisting(ctx.url, ctx.fx, settings.existing);
      state.existing = settings.existing;
      save();
    }
    const scaled = await runPhase('existing');
    const scaledCreate = scaled.listed.find((run) => run.name === 'batchCreate');
    const emptyCreate = by('batchCreate');
    result.existing = {
      contacts: settings.existing,
      storedAnswers: scaled.listed.some((run) => run.name === 'erase') ? (state.storedAnswers ?? 0) : 0,
      scenarios: Object.fromEntries(scaled.listed.map((run) => [run.name, run])),
      batchCreateRatioToEmpty: emptyCreate && scaledCreate ? round(scaledCreate.perSecond / emptyCreate.perSecond, 3) : null,
    };
  }
  return failed5xx;
}

main().catch((error: unknown) => {
  const message = error instanceof SettingError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`bench failed: ${message}\n`);
  process.exitCode = 1;
});
