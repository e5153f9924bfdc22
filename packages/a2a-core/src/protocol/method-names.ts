/**
 * The one table of JSON-RPC methods: current (A2A v1.0) names, the older slash aliases they also answer
 * to, and whether the reference handler implements them. Everything else looks methods up here.
 */
export const METHODS = {
  SendStreamingMessage: { alias: "message/stream", streaming: true, implemented: true },
  SubscribeToTask: { alias: "tasks/resubscribe", streaming: true, implemented: true },
  GetTask: { alias: "tasks/get", streaming: false, implemented: true },
  CancelTask: { alias: "tasks/cancel", streaming: false, implemented: true },
  ListTasks: { alias: "tasks/list", streaming: false, implemented: true },
  SendMessage: { alias: "message/send", streaming: false, implemented: true },
  GetExtendedAgentCard: { alias: "agent/getAuthenticatedExtendedCard", streaming: false, implemented: true },
  // Push notifications: answered when the handler has them on (stores.push), PushNotificationNotSupportedError
  // (-32003) otherwise, params unread.
  CreateTaskPushNotificationConfig: {
    alias: "tasks/pushNotificationConfig/set",
    streaming: false,
    implemented: true,
    push: true,
  },
  GetTaskPushNotificationConfig: {
    alias: "tasks/pushNotificationConfig/get",
    streaming: false,
    implemented: true,
    push: true,
  },
  ListTaskPushNotificationConfigs: {
    alias: "tasks/pushNotificationConfig/list",
    streaming: false,
    implemented: true,
    push: true,
  },
  DeleteTaskPushNotificationConfig: {
    alias: "tasks/pushNotificationConfig/delete",
    streaming: false,
    implemented: true,
    push: true,
  },
} as const satisfies Record<
  string,
  { alias: string | undefined; streaming: boolean; implemented: boolean; push?: boolean }
>;

export type MethodName = keyof typeof METHODS;
export type MethodAlias = NonNullable<(typeof METHODS)[MethodName]["alias"]>;

const byWireName = new Map<string, MethodName>();
for (const [name, entry] of Object.entries(METHODS) as [MethodName, (typeof METHODS)[MethodName]][]) {
  byWireName.set(name, name);
  if (entry.alias) byWireName.set(entry.alias, name);
}

/** Every name the endpoint answers to: each method's current name, then its alias. */
export const WIRE_METHOD_NAMES: readonly string[] = [...byWireName.keys()];

/** Resolves a method name as sent on the wire (current name or alias) to its current name. */
export function resolveMethod(wireName: string): MethodName | undefined {
  return byWireName.get(wireName);
}

/** The slash alias of a method, for speaking to servers that predate the current names. */
export function aliasOf(name: MethodName): string | undefined {
  return METHODS[name].alias;
}
