/**
 * Whether and how the service traces, read and checked at start from the standard OpenTelemetry
 * variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 * Pure: no OpenTelemetry package is loaded here. Tracing is OFF unless OTEL_TRACES_EXPORTER names
 * an exporter (not `none`) or an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): unlike the spec's default (`otlp` to localhost:4318), a plain
 * start never sends spans to a collector nobody set up. OTEL_SDK_DISABLED=true switches it off
 * whatever else is set. Everything else keeps the spec's meaning and defaults.
 */

export type TraceExporterName = 'otlp' | 'console';
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type SamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

/** `sampler`: OTEL_TRACES_SAMPLER (spec default parentbased_always_on) and its ratio (OTEL_TRACES_SAMPLER_ARG, default 1). */
export type TracingSettings =
  | { enabled: false; why: string }
  | { enabled: true; exporters: TraceExporterName[]; protocol: OtlpProtocol; propagators: Array<'tracecontext' | 'baggage'>; sampler: { name: SamplerName; ratio: number } };

/** A variable with a value this service cannot honour: the start stops with this message. */
export class TracingSettingsError extends Error {}

const SAMPLERS: SamplerName[] = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

type Env = Record<string, string | undefined>;

/** The spec: empty values are treated as unset; names are case-insensitive where they are enums. */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);
}

export function tracingSettings(env: Env): TracingSettings {
  const disabled = read(env, 'OTEL_SDK_DISABLED')?.toLowerCase();
  if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') {
    throw new TracingSettingsError(`OTEL_SDK_DISABLED must be true or false, got "${env.OTEL_SDK_DISABLED}"`);
  }
  if (disabled === 'true') return { enabled: false, why: 'OTEL_SDK_DISABLED=true' };

  const named = list(read(env, 'OTEL_TRACES_EXPORTER'));
  for (const name of named) {
    if (name !== 'otlp' && name !== 'console' && name !== 'none') {
      throw new TracingSettingsError(`OTEL_TRACES_EXPORTER: "${name}" is not supported (use otlp, console or none)`);
    }
  }
  if (named.includes('none')) return { enabled: false, why: 'OTEL_TRACES_EXPORTER=none' };
  const endpoint = read(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (named.length === 0 && endpoint === undefined) {
    return { enabled: false, why: 'neither OTEL_TRACES_EXPORTER nor an OTLP endpoint is set' };
  }
  const exporters: TraceExporterName[] = named.length === 0 ? ['otlp'] : [...new Set(named as TraceExporterName[])];

  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const value = read(env, name);
    if (value !== undefined && !/^https?:\/\/[^\s/]+/i.test(value)) {
      throw new TracingSettingsError(`${name} must be an http:// or https:// URL, got "${value}"`);
    }
  }

  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (read(env, protocolName) ?? 'http/protobuf').toLowerCase();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new TracingSettingsError(`${protocolName}: "${protocol}" is not supported (use http/protobuf or http/json; OTLP over HTTP, usually port 4318)`);
  }

  const sampler = read(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase();
  if (sampler !== undefined && !SAMPLERS.includes(sampler as SamplerName)) {
    throw new TracingSettingsError(`OTEL_TRACES_SAMPLER: "${sampler}" is not supported (use one of ${SAMPLERS.join(', ')})`);
  }
  const ratio = read(env, 'OTEL_TRACES_SAMPLER_ARG');
  let ratioValue = 1;
  if (ratio !== undefined && sampler?.endsWith('traceidratio')) {
    ratioValue = Number(ratio);
    if (!Number.isFinite(ratioValue) || ratioValue < 0 || ratioValue > 1) {
      throw new TracingSettingsError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${ratio}"`);
    }
  }

  const propagatorNames = list(read(env, 'OTEL_PROPAGATORS') ?? 'tracecontext,baggage');
  const propagators: Array<'tracecontext' | 'baggage'> = [];
  for (const name of propagatorNames) {
    if (name === 'none') continue;
    if (name !== 'tracecontext' && name !== 'baggage') {
      throw new TracingSettingsError(`OTEL_PROPAGATORS: "${name}" is not supported (use tracecontext, baggage or none)`);
    }
    if (!propagators.includes(name)) propagators.push(name);
  }

  return { enabled: true, exporters, protocol, propagators, sampler: { name: (sampler as SamplerName | undefined) ?? 'parentbased_always_on', ratio: ratioValue } };
}
