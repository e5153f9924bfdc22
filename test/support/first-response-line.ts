import type { Socket } from "node:net";

/**
 * Resolves with the first line the server writes on `socket` (the status line; the socket is then
 * destroyed), or with what `ended` makes of the text so far when the connection errors or closes first.
 * Call it before anything can arrive on the socket.
 */
export function firstResponseLine(
  socket: Socket,
  ended: (how: "error" | "close", text: string) => string,
): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      text += chunk;
      if (text.includes("\r\n")) {
        resolve(text.split("\r\n")[0] as string);
        socket.destroy();
      }
    });
    socket.on("error", () => resolve(ended("error", text)));
    socket.on("close", () => resolve(ended("close", text)));
  });
}
