// One JSON line per event on stdout. Callers pass paths, never query strings or bodies:
// those carry tokens and tickets.
export type Logger = {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

export function createLogger(level: 'silent' | 'error' | 'info' = 'info'): Logger {
  const write = (lvl: string, msg: string, fields?: Record<string, unknown>) =>
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })}\n`);
  return {
    info: (msg, fields) => {
      if (level === 'info') write('info', msg, fields);
    },
    error: (msg, fields) => {
      if (level !== 'silent') write('error', msg, fields);
    },
  };
}

/**
 * Answers that handed their client every byte of their length before it closed (curl closes at
 * the last byte, sometimes before the stream has said it ended): the request log calls them whole.
 */
export const handedWhole = new WeakSet<object>();
