import { tracingSettings, TracingSettingsError } from './tracing-settings';

describe('tracingSettings (the OTEL_* variables)', () => {
  it('is off when nothing asks for it, and off whatever is set when OTEL_SDK_DISABLED=true', () => {
    expect(tracingSettings({})).toMatchObject({ enabled: false });
    expect(tracingSettings({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' })).toMatchObject({ enabled: false });
    expect(tracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({
      enabled: false,
      why: 'OTEL_SDK_DISABLED=true',
    });
    expect(tracingSettings({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ enabled: false });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({ enabled: false });
  });

  it('is on with an OTLP endpoint (any of the two) or a named exporter; OTLP over HTTP with protobuf unless told json', () => {
    const on = {
      enabled: true,
      exporters: ['otlp'],
      protocol: 'http/protobuf',
      propagators: ['tracecontext', 'baggage'],
      sampler: { name: 'parentbased_always_on', ratio: 1 },
    };
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual(on);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/v1/traces' })).toEqual(on);
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual(on);
    expect(tracingSettings({ OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: ' console , otlp ', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({
      ...on,
      exporters: ['console', 'otlp'],
      protocol: 'http/json',
    });
    // The per-signal variable wins over the general one.
    expect(
      tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }),
    ).toMatchObject({ protocol: 'http/json' });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_PROPAGATORS: 'tracecontext' })).toMatchObject({ propagators: ['tracecontext'] });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_PROPAGATORS: 'none' })).toMatchObject({ propagators: [] });
  });

  it.each([
    [{ OTEL_SDK_DISABLED: 'yes' }, 'OTEL_SDK_DISABLED must be true or false, got "yes"'],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER: "zipkin" is not supported (use otlp, console or none)'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'OTEL_TRACES_SAMPLER: "jaeger_remote" is not supported'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' }, 'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_PROPAGATORS: 'b3' }, 'OTEL_PROPAGATORS: "b3" is not supported'],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => tracingSettings(env)).toThrow(TracingSettingsError);
    expect(() => tracingSettings(env)).toThrow(message);
  });

  it('a sampler ratio is accepted from 0 to 1 (the spec: 10% is 0.1); without OTEL_TRACES_SAMPLER_ARG it is 1', () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' })).toMatchObject({
      enabled: true,
      sampler: { name: 'parentbased_traceidratio', ratio: 0.1 },
    });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'TraceIdRatio' })).toMatchObject({ sampler: { name: 'traceidratio', ratio: 1 } });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: 'ignored' })).toMatchObject({
      sampler: { name: 'always_off', ratio: 1 },
    });
  });
});
