import type { Message } from "./schemas/a2a.js";

/** The task in plain language: the message's text parts, joined by newlines, trimmed. */
export function textOfMessage(message: Message): string {
  return message.parts
    .flatMap((part) => (part.text === undefined ? [] : [part.text]))
    .join("\n")
    .trim();
}
