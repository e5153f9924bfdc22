import { type CallInterceptor, ClientFactory, RestTransportFactory } from "@a2a-js/sdk/client";

// The Authorization header, through the SDK's call-interceptor seam (as for JSON-RPC).
const bearer: CallInterceptor = {
  async before(args) {
    args.options = {
      ...args.options,
      serviceParameters: { ...args.options?.serviceParameters, Authorization: `Bearer ${process.env.A2A_TOKEN}` },
    };
  },
  async after() {},
};
// Options of your own, not ClientFactoryOptions.createFrom(ClientFactoryOptions.default, …): that merges
// the default transports back in, and with JSON-RPC listed first in the card the client would use it.
const factory = new ClientFactory({
  transports: [new RestTransportFactory()],
  clientConfig: { interceptors: [bearer] },
});
const client = await factory.createFromUrl(process.env.A2A_URL ?? "https://robots.example.com");
console.log(client.transport.protocolName); // HTTP+JSON
