import type { KeptState } from './database';
import type { Measured } from './figures';
import { seedOverwriteContacts, type Fixtures, type OverwriteEmails } from './fixtures';
import type { Service } from './service';
import type { BenchSettings } from './settings';
import type { StatementStats } from './statement-stats';

/**
 * `empty`: the main run, on a database holding only what the scenarios wrote. `existing`: after
 * `--existing N` loaded N contacts (and stored answers for erase).
 */
export type Phase = 'empty' | 'existing';

/** What the harness hands every scenario: the settings, the database, the running service, its organization. */
export interface BenchContext {
  settings: BenchSettings;
  /** The bench database (pg connection string). */
  url: string;
  service: Service;
  stats: StatementStats;
  fx: Fixtures;
  /** What a kept data folder holds (BENCH_DATA_DIR), and how to save it. */
  kept: { state: KeptState; save(): void };
  /** The contacts of batchOverwrite and singleUnchanged, written once on first use. */
  overwriteEmails(): Promise<OverwriteEmails>;
}

/** What a scenario gives the JSON line. */
export interface ScenarioResult {
  /** Runs listed under the phase's `scenarios` (`existing.scenarios` in the existing phase). */
  listed?: Measured[];
  /** Runs not listed there whose 5xx still count (sweep levels, coldFirst5s). */
  unlisted?: Measured[];
  /** The scenario's own entry at the top level of the JSON line, under its name. */
  report?: unknown;
  /** Answers 5xx to requests outside `listed` and `unlisted` (they count in `responses5xx`). */
  status5xx?: number;
}

/** One file of bench/scenarios: a name (what BENCH_ONLY takes), the phases it runs in, its run. */
export interface Scenario {
  name: string;
  phases: readonly Phase[];
  run(ctx: BenchContext, phase: Phase): Promise<ScenarioResult>;
}

export function benchContext(base: Omit<BenchContext, 'overwriteEmails'>): BenchContext {
  let seeded: Promise<OverwriteEmails> | null = null;
  return { ...base, overwriteEmails: () => (seeded ??= seedOverwriteContacts(base.service, base.fx)) };
}
