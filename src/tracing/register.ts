import { processLogger } from '../logging/process-log';
import { tracingSettings, TracingSettingsError } from './tracing-settings';

let provider: { shutdown(): Promise<void> } | undefined;

/**
 * The first import of main.ts: OpenTelemetry instruments modules by hooking `require`, so it must be set up before
 * http, pg or ioredis are first loaded. When the OTEL_* variables leave tracing off (the default), none of its SDK is.
 */
try {
  const settings = tracingSettings(process.env);
  // Required, not imported: the SDK stays unloaded when tracing is off.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (settings.enabled) provider = (require('./start-tracing') as typeof import('./start-tracing')).startTracing(settings);
} catch (error) {
  // Like any bad configuration value: one line naming the variable (in the one JSON format), exit 1.
  if (!(error instanceof TracingSettingsError)) throw error;
  processLogger('fatal', 2).fatal(`Invalid configuration: ${error.message}`);
  process.exit(1);
}

/** At shutdown: export the buffered spans, never longer than `timeoutMs`, never throw. */
export async function shutdownTracing(timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([provider?.shutdown().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}
