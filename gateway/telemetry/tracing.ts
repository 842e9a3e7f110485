/**
 * OpenTelemetry traces, exported over OTLP/HTTP with the official SDK; built only when an OTLP
 * endpoint is configured, so with tracing off nothing here runs. Each HTTP request gets one
 * server span (RequestTrace); the pipeline adds a child span per stage and per upstream attempt.
 * Contexts are passed explicitly (no global context manager, no async hooks): that keeps the cost
 * to the spans themselves.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, RandomIdGenerator, TraceIdRatioBasedSampler, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../../core/config.js';
import type { RequestLogEntry } from '../../core/request-log.js';
import { formatTraceparent, otelTraceIdOf, type RemoteParent } from './trace-context.js';

export interface TracingOptions {
  /** OTLP/HTTP traces URL, e.g. http://collector:4318/v1/traces. */
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
  serviceVersion: string;
  /** Share of new traces recorded (a caller's sampled flag decides for its own traces). */
  sampleRatio: number;
  /** Request and response bodies as span attributes (off by default: they may hold personal data). */
  captureBodies: boolean;
}

/** Largest body, in characters, copied into a span attribute when bodies are captured. */
const BODY_ATTRIBUTE_MAX = 8192;

/**
 * Random ids, except that the next root trace may be given its id: a request whose x-gw-trace-id
 * is a UUID or 32 hex digits is traced under that id, so gw's logs and the trace backend agree.
 */
class ChosenTraceIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  chosen: string | undefined;

  generateTraceId(): string {
    const id = this.chosen ?? this.random.generateTraceId();
    this.chosen = undefined;
    return id;
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

export class Tracing {
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private readonly ids = new ChosenTraceIds();
  readonly captureBodies: boolean;

  constructor(options: TracingOptions) {
    this.captureBodies = options.captureBodies;
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.serviceVersion }),
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio) }),
      idGenerator: this.ids,
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.endpoint, headers: options.headers }))],
    });
    this.tracer = this.provider.getTracer('gw', options.serviceVersion);
  }

  static fromConfig(config: Config['tracing'], serviceVersion: string): Tracing | undefined {
    if (!config.endpoint) return undefined;
    return new Tracing({ ...config, endpoint: config.endpoint, serviceVersion });
  }

  /** The server span of one HTTP request, child of the caller's span when it sent a traceparent. */
  /** `mask` takes the request's secrets out of any text a span keeps (error messages, captured bodies). */
  startRequest(method: string, path: string, gwTraceId: string, remote: RemoteParent | undefined, startTime: number, mask: (text: string) => string): RequestTrace {
    let parent: Context = ROOT_CONTEXT;
    if (remote) {
      parent = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: remote.traceId,
        spanId: remote.spanId,
        traceFlags: remote.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
        isRemote: true,
      });
    } else {
      this.ids.chosen = otelTraceIdOf(gwTraceId);
    }
    const span = this.tracer.startSpan(`${method} ${path}`, { kind: SpanKind.SERVER, startTime, attributes: { 'http.request.method': method, 'gw.trace_id': gwTraceId } }, parent);
    this.ids.chosen = undefined;
    return new RequestTrace(this.tracer, span, remote, this.captureBodies, mask);
  }

  /** Exports what is still buffered (shutdown; tests). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** One request's server span and the children the pipeline hangs under it. */
export class RequestTrace {
  private readonly context: Context;

  constructor(
    private readonly tracer: Tracer,
    readonly span: Span,
    private readonly remote: RemoteParent | undefined,
    readonly captureBodies: boolean,
    private readonly mask: (text: string) => string,
  ) {
    this.context = trace.setSpan(ROOT_CONTEXT, span);
  }

  get spanId(): string {
    return this.span.spanContext().spanId;
  }

  /** The caller's span, when it sent a traceparent. */
  get parentSpanId(): string | undefined {
    return this.remote?.spanId;
  }

  /** The route once routing has matched it (`POST /v1/chat/completions`), which names the span. */
  named(route: string): void {
    this.span.updateName(route);
    this.span.setAttribute('http.route', route.slice(route.indexOf(' ') + 1));
  }

  /** A pipeline stage or an upstream attempt. */
  child(name: string, kind: SpanKind = SpanKind.INTERNAL, attributes?: Attributes): Span {
    return this.tracer.startSpan(name, { kind, attributes }, this.context);
  }

  /** The traceparent for an upstream call made inside `span`, with the caller's tracestate. */
  propagation(span: Span): Record<string, string> {
    const { traceId, spanId, traceFlags } = span.spanContext();
    const headers: Record<string, string> = { traceparent: formatTraceparent(traceId, spanId, (traceFlags & TraceFlags.SAMPLED) !== 0) };
    if (this.remote?.traceState) headers.tracestate = this.remote.traceState;
    return headers;
  }

  /** What the request's log entry says: provider, model, status, tokens, cache (bodies only when asked). */
  annotate(entry: RequestLogEntry): void {
    const attributes: Attributes = {
      'gw.endpoint': entry.endpoint,
      'gw.log_id': entry.id,
      'gw.cache_status': entry.cache_status,
      'gw.retry_count': entry.retry_count,
      'gen_ai.usage.input_tokens': entry.prompt_tokens,
      'gen_ai.usage.output_tokens': entry.completion_tokens,
      'gw.cost_usd': entry.cost,
    };
    if (entry.provider) attributes['gw.provider'] = entry.provider;
    if (entry.model) attributes['gen_ai.request.model'] = entry.model;
    if (entry.cost_unpriced) attributes['gw.cost_unpriced'] = true;
    if (entry.error) attributes['error.type'] = entry.error.code;
    if (this.captureBodies) {
      attributes['gw.request_body'] = bodyAttribute(this.mask(JSON.stringify(entry.request_body ?? null)));
      attributes['gw.response_body'] = bodyAttribute(this.mask(JSON.stringify(entry.response_body ?? null)));
    }
    this.span.setAttributes(attributes);
  }

  /** Ends a child span with the outcome's status; an error message (an upstream's may echo a key) is masked first. */
  endChild(span: Span, status: number | null, error?: { code?: string; message?: string }): void {
    if (status !== null) span.setAttribute('http.response.status_code', status);
    if (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message === undefined ? undefined : this.mask(error.message) });
      if (error.code) span.setAttribute('error.type', error.code);
    }
    span.end();
  }

  end(status: number, endTime: number): void {
    this.span.setAttribute('http.response.status_code', status);
    if (status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end(endTime);
  }
}

function bodyAttribute(text: string): string {
  return text.length > BODY_ATTRIBUTE_MAX ? text.slice(0, BODY_ATTRIBUTE_MAX) : text;
}
