import type { CallInterceptor } from "@a2a-js/sdk/client";

// The Authorization header (over gRPC: metadata), through the SDK's call-interceptor seam, for every transport.
export const bearer: CallInterceptor = {
  async before(args) {
    args.options = {
      ...args.options,
      serviceParameters: { ...args.options?.serviceParameters, Authorization: `Bearer ${process.env.A2A_TOKEN}` },
    };
  },
  async after() {},
};
