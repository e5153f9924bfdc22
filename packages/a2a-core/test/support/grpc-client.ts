import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { type DescMessage, fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import {
  type CallOptions,
  type ChannelCredentials,
  Client,
  credentials,
  Metadata,
  type ServiceError,
} from "@grpc/grpc-js";
import { A2AService } from "../../third_party/generated/a2a_pb.js";
import { ErrorInfoSchema } from "../../third_party/generated/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../third_party/generated/google/rpc/status_pb.js";

/** A bare grpc-js client of a2a.proto's service that speaks ProtoJSON, for tests. */
export class A2AGrpcTestClient {
  readonly client: Client;

  constructor(port: number, channel: ChannelCredentials = credentials.createInsecure()) {
    this.client = new Client(`127.0.0.1:${port}`, channel);
  }

  close(): void {
    this.client.close();
  }

  unary(method: string, request: unknown, options: CallInit = {}): Promise<LooseJson> {
    const desc = methodDesc(method);
    return new Promise((resolve, reject) =>
      this.client.makeUnaryRequest(
        `/${A2AService.typeName}/${method}`,
        (value: Buffer) => value,
        (bytes: Buffer) => bytes,
        options.raw ?? Buffer.from(toBinary(desc.input, fromJson(desc.input, request as JsonValue))),
        metadataOf(options),
        options.call ?? {},
        (error, bytes) =>
          error ? reject(error) : resolve(toJson(desc.output, fromBinary(desc.output, bytes as Buffer))),
      ),
    );
  }

  /** A server-streaming call: its messages as ProtoJSON, and the call (to cancel it). */
  stream(method: string, request: unknown, options: CallInit = {}) {
    const desc = methodDesc(method);
    const call = this.client.makeServerStreamRequest(
      `/${A2AService.typeName}/${method}`,
      (value: Buffer) => value,
      (bytes: Buffer) => bytes,
      Buffer.from(toBinary(desc.input, fromJson(desc.input, request as JsonValue))),
      metadataOf(options),
      options.call ?? {},
    );
    async function* messages(): AsyncGenerator<LooseJson> {
      for await (const bytes of call) yield toJson(desc.output, fromBinary(desc.output, bytes as Buffer));
    }
    return { call, messages: messages() };
  }
}

export interface CallInit {
  token?: string | null;
  metadata?: Record<string, string>;
  call?: CallOptions;
  /** Bytes sent as they are (a malformed message). */
  raw?: Buffer;
}

function methodDesc(name: string) {
  const desc = A2AService.methods.find((method) => method.name === name);
  if (!desc) throw new Error(`no method ${name}`);
  return desc as { input: DescMessage; output: DescMessage };
}

function metadataOf(options: CallInit): Metadata {
  const metadata = new Metadata();
  const token = options.token === undefined ? "partner-a" : options.token;
  if (token) metadata.set("authorization", `Bearer ${token}`);
  for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.set(key, value);
  return metadata;
}

/** The ErrorInfo of a failed call's `grpc-status-details-bin`. */
export function errorInfoOf(error: ServiceError) {
  const raw = error.metadata.get("grpc-status-details-bin")[0];
  if (!Buffer.isBuffer(raw)) return undefined;
  const status = fromBinary(StatusSchema, raw);
  const info = status.details.map((any) => anyUnpack(any, ErrorInfoSchema)).find((value) => value !== undefined);
  return info ? { reason: info.reason, domain: info.domain, metadata: { ...info.metadata } } : undefined;
}
