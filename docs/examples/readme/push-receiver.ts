import { createServer } from "node:http";
import { text } from "node:stream/consumers";
import { PushVerificationError, verifyPushNotification } from "@a2a-partner/a2a-client";

createServer(async (req, res) => {
  try {
    const body = await text(req); // the raw body: the signature covers its bytes
    const { webhookId, taskId, event } = verifyPushNotification({
      body,
      headers: req.headers,
      secret: process.env.A2A_PUSH_SECRET as string,
    });
    console.log(webhookId, taskId, event.kind); // skip a webhookId you already handled
    res.writeHead(204).end();
  } catch (error) {
    res.writeHead(error instanceof PushVerificationError ? 400 : 500).end();
  }
}).listen(Number(process.env.PORT ?? 8081));
