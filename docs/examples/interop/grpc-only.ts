import { type CallInterceptor, ClientFactory } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";

// The Authorization metadata, through the SDK's call-interceptor seam (as for JSON-RPC).
const bearer: CallInterceptor = {
  async before(args) {
    args.options = {
      ...args.options,
      serviceParameters: { ...args.options?.serviceParameters, Authorization: `Bearer ${process.env.A2A_TOKEN}` },
    };
  },
  async after() {},
};
// Its gRPC transport only: the client dials the card's GRPC interface (host:port).
const factory = new ClientFactory({
  transports: [new GrpcTransportFactory()],
  clientConfig: { interceptors: [bearer] },
});
const client = await factory.createFromUrl(process.env.A2A_URL ?? "https://robots.example.com");
console.log(client.transport.protocolName); // GRPC
