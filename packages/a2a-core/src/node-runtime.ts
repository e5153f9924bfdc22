/**
 * Node process entry (`@a2a-partner/a2a-core/node-runtime`): what a long-running Node server sets up
 * before it serves, apart from A2A itself. V8's heap defaults (`applyHeapDefaults`, called first thing)
 * and the OpenTelemetry SDK's start-up (`startTelemetry`: a Prometheus scrape endpoint, OTLP export from
 * the standard `OTEL_*` variables, the SDK's diagnostics in your log), and a control socket through
 * which a CLI reaches the process that holds a store only one process may open. The SDK packages are
 * optional peer dependencies, loaded only when telemetry is switched on. Besides: settings read from the
 * environment with errors that name the variable (`portSetting`, `durationSetting` …, `ConfigError`), the
 * HTTP listener's limits and start (`createHttpServer`, `listenHttp`), a graceful stop on signals, and a
 * command line's table of commands with its exit codes (`runCommandLine`, `EXIT_CODES`).
 */

export { type AgentCardEndpoint, agentCardEndpoint, type DiscoveryAnswer } from "./node-runtime/agent-card-endpoint.js";
export { type CardSigningSettings, loadCardSigning } from "./node-runtime/card-signing-key.js";
export {
  type ControlAnswer,
  type ControlCommands,
  type ControlSocketOptions,
  type ControlSocketPaths,
  sendControlCommand,
  startControlSocket,
} from "./node-runtime/control/control-socket.js";
export { ensurePrivateDirectory } from "./node-runtime/control/private-directory.js";
export { controlSocketPaths, MAX_SOCKET_PATH_BYTES } from "./node-runtime/control/socket-paths.js";
export { trustedSocketExists } from "./node-runtime/control/trusted-socket.js";
export { type GrpcSettings, grpcSettings } from "./node-runtime/grpc-settings.js";
export {
  appliedHeapSettings,
  applyHeapDefaults,
  decideHeapSettings,
  HEAP_DEFAULTS,
  HEAP_GROWTH,
  type HeapDecision,
  type HeapSettingsSource,
  heapSettingsForLog,
  SEMI_SPACE_FLAG,
} from "./node-runtime/heap-defaults.js";
export { createPinoLogger, type PinoLoggerOptions } from "./node-runtime/pino-logger.js";
export {
  type CommandLine,
  type CommandLineCommand,
  EXIT_CODES,
  expectPositionals,
  NotFoundError,
  parseCommandArgs,
  parseOptionsOnly,
  runCommandLine,
  UsageError,
} from "./node-runtime/process/command-line.js";
export {
  createHttpServer,
  type HttpServerLimits,
  type ListenOptions,
  listenHttp,
} from "./node-runtime/process/http-listen.js";
export { notFoundAnswer, problemOnError, sendProblem } from "./node-runtime/process/problem-answers.js";
export { type LevelCheckingLogger, withRequestLog } from "./node-runtime/process/request-log.js";
export { SECURITY_HEADERS, securityHeaders } from "./node-runtime/process/security-headers.js";
export { type Stoppable, serveUntilSignalled } from "./node-runtime/process/serve-until-signalled.js";
export {
  endQuietlyOnClosedPipe,
  type SignalledShutdown,
  stopOnSignals,
} from "./node-runtime/process/shutdown-signals.js";
export { ThrottledLog, type ThrottledLogOptions } from "./node-runtime/process/throttled-log.js";
export { durationOption, pastInstantOption } from "./node-runtime/process/time-options.js";
export { type PushSettings, pushSettings } from "./node-runtime/push-settings.js";
export type { RuntimeLogger } from "./node-runtime/runtime-logger.js";
export { sdkDiagnosticsLevel, sdkDiagnosticsLogger } from "./node-runtime/sdk-diagnostics.js";
export {
  assertPublicUrlFits,
  cardSigningSettings,
  type HandlerLimitSettings,
  type HttpSettings,
  handlerLimitSettings,
  handlerLimits,
  httpSettings,
  type TelemetrySettings,
  telemetrySettings,
} from "./node-runtime/server-settings.js";
export {
  ConfigError,
  type DurationSettingSpec,
  durationSetting,
  integerSetting,
  isLoopbackHost,
  LOG_LEVELS,
  logFormatSetting,
  logLevelSetting,
  MAX_DURATION_SECONDS,
  MAX_TIMER_MS,
  millisecondsSetting,
  onOffSetting,
  parseDuration,
  portSetting,
  publicUrlSetting,
  redactSecrets,
} from "./node-runtime/settings.js";
export {
  otlpRequested,
  startTelemetry,
  type Telemetry,
  type TelemetryOptions,
} from "./node-runtime/start-telemetry.js";
