import { ClientFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { bearer } from "./bearer.ts";

// Options of your own, not ClientFactoryOptions.createFrom(ClientFactoryOptions.default, …): that merges
// the default transports back in, and with JSON-RPC listed first in the card the client would use it.
const factory = new ClientFactory({
  transports: [new RestTransportFactory()],
  clientConfig: { interceptors: [bearer] },
});
const client = await factory.createFromUrl(process.env.A2A_URL ?? "https://robots.example.com");
console.log(client.transport.protocolName); // HTTP+JSON
