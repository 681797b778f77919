import { tracingSettings, TracingSettingsError } from './tracing-settings';

/**
 * The first import of main.ts: OpenTelemetry instruments modules by hooking `require`, so it must
 * be set up before http, express, Nest, pg or ioredis are first loaded. When the OTEL_*
 * variables leave tracing off (the default), nothing of OpenTelemetry is loaded.
 */
try {
  const settings = tracingSettings(process.env);
  if (settings.enabled) {
    // Required here, not imported: the SDK must stay unloaded when tracing is off.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('./start-tracing') as typeof import('./start-tracing')).startTracing(settings);
  }
} catch (error) {
  // Like any bad configuration value: one line naming the variable, exit 1 (README, "Configuration").
  if (!(error instanceof TracingSettingsError)) throw error;
  console.error(`Invalid configuration: ${error.message}`);
  process.exit(1);
}
