import winston from 'winston';
import { activeTraceId } from '../tracing/tracing.js';
import { redactFields } from '../security/redact-secrets.js';

export type Logger = winston.Logger;

export interface LoggerOptions {
  level: string;
  /** The MCP stdio role keeps stdout for the protocol, so it logs to stderr. */
  stream?: 'stdout' | 'stderr';
  /** Fields on every line (the role, for instance). */
  defaultMeta?: Record<string, unknown>;
}

/** Every line written within a traced request or job carries its trace id. */
const traceId = winston.format((info) => {
  const id = activeTraceId();
  if (id) info.trace_id = id;
  return info;
});

/** A field named like a credential (`password`, `accessToken`, `Cookie`...) is written as `***`, at any depth. */
const credentialsBlanked = winston.format((info) => redactFields(info));

/** One JSON object per line, with a timestamp (and the trace id, when traced); children add a request or job id. */
export function createLogger({ level, stream = 'stdout', defaultMeta }: LoggerOptions): Logger {
  const transport =
    stream === 'stderr'
      ? new winston.transports.Console({ stderrLevels: Object.keys(winston.config.npm.levels) })
      : new winston.transports.Console();
  return winston.createLogger({
    level,
    defaultMeta,
    format: winston.format.combine(
      credentialsBlanked(),
      traceId(),
      winston.format.timestamp(),
      winston.format.errors({ stack: false }),
      winston.format.json(),
    ),
    transports: [transport],
  });
}

/**
 * For a command a person runs and reads (`aiops kb search`): one plain line per entry on stderr,
 * `aiops: warning: MESSAGE (field: value; ...)`, since stdout carries the answer.
 */
export function commandLogger(level: 'warn' | 'error'): Logger {
  return winston.createLogger({
    level,
    format: winston.format.combine(
      credentialsBlanked(),
      winston.format.errors({ stack: false }),
      winston.format.printf(({ level: entryLevel, message, ...fields }) => {
        const details = Object.entries(fields)
          .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
          .join('; ');
        return `aiops: ${entryLevel === 'warn' ? 'warning' : entryLevel}: ${String(message)}${details ? ` (${details})` : ''}`;
      }),
    ),
    transports: [new winston.transports.Console({ stderrLevels: Object.keys(winston.config.npm.levels) })],
  });
}

/** A logger that drops everything, for tests and for callers that do not care. */
export function silentLogger(): Logger {
  return winston.createLogger({ silent: true, transports: [new winston.transports.Console({ silent: true })] });
}
