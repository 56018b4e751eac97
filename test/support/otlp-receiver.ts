import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** When it started, in nanoseconds since the epoch (a bigint: the figure needs 61 bits). */
  readonly startNs: bigint;
  readonly attributes: Readonly<Record<string, unknown>>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano?: string | number;
  attributes?: { key: string; value: OtlpValue }[];
}
interface OtlpExport {
  resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

const attributeValue = (v: OtlpValue): unknown =>
  v.stringValue ??
  (v.intValue === undefined ? undefined : Number(v.intValue)) ??
  v.boolValue ??
  v.doubleValue;

/**
 * An in-process OTLP/HTTP receiver (JSON encoding, `POST /v1/traces`): what a collector would be
 * told, kept for the test to read.
 */
export class OtlpReceiver {
  public readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;

  /** Starts on 127.0.0.1 and returns the traces endpoint's URL. */
  public async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport;
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              this.spans.push({
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                startNs: BigInt(span.startTimeUnixNano ?? 0),
                attributes: Object.fromEntries(
                  (span.attributes ?? []).map((a) => [a.key, attributeValue(a.value)]),
                ),
              });
            }
          }
        }
        response.writeHead(200, { "Content-Type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1/traces`;
  }

  public async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
