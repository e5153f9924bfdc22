import { A2AClient } from "@a2a-partner/a2a-client";
import { grpcTransport } from "@a2a-partner/a2a-client/grpc";

// The same client over gRPC: it reads the card at A2A_URL and dials its GRPC interface (host:port).
const client = new A2AClient({
  baseUrl: process.env.A2A_URL ?? "http://localhost:8080",
  token: process.env.A2A_TOKEN,
  binding: "grpc",
  grpc: grpcTransport(), // TLS unless the URL is plain http; `credentials` for your own
});
const stream = client.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
for await (const event of stream) console.log(event.type, event.eventId); // task 1, update 2, …, finished n
console.log(client.endpoint); // the card's gRPC address
await client.close();
