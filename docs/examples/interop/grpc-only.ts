import { ClientFactory } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { bearer } from "./bearer.ts";

// Its gRPC transport only: the client dials the card's GRPC interface (host:port).
const factory = new ClientFactory({
  transports: [new GrpcTransportFactory()],
  clientConfig: { interceptors: [bearer] },
});
const client = await factory.createFromUrl(process.env.A2A_URL ?? "https://robots.example.com");
console.log(client.transport.protocolName); // GRPC
