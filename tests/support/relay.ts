// The one SMTP catcher of the tests: a real smtp-server on 127.0.0.1 that keeps every message it
// accepts. `delayMs` holds each message that long before accepting it (a slow relay, or a send
// caught in the middle); `down()` and `up()` close and reopen it on the same port (a relay that is
// down refuses connections, so the app's SMTP_URL stays valid across both).
import { SMTPServer } from 'smtp-server';
import { freePort } from './postgres-server.ts';

export type RelayMessage = { from: string; to: string[]; raw: string };

export type Relay = {
  port: number;
  /** `smtp://127.0.0.1:<port>`, for the app's SMTP_URL. */
  url: string;
  /** Every message accepted so far, in order (kept across `down()` and `up()`). */
  messages: RelayMessage[];
  /** The first message to `address` accepted from now on (or already, after `since`). */
  waitFor(address: string, options?: { since?: number; timeoutMs?: number }): Promise<RelayMessage>;
  /** Closes the listener: connections are refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  stop(): Promise<void>;
};

export async function startRelay(options: { delayMs?: number; port?: number; down?: boolean } = {}): Promise<Relay> {
  const delayMs = options.delayMs ?? 0;
  const port = options.port ?? (await freePort());
  const messages: RelayMessage[] = [];
  let server: SMTPServer | undefined;

  const listen = async () => {
    const listening = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () =>
          setTimeout(() => {
            messages.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              raw: Buffer.concat(chunks).toString('utf8'),
            });
            callback();
          }, delayMs),
        );
      },
    });
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    server = listening;
  };
  const close = async () => {
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };

  if (!options.down) await listen();
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(address, { since = 0, timeoutMs = 10_000 } = {}) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.slice(since).find((m) => m.to.includes(address));
        if (found) return found;
        if (Date.now() > end) throw new Error(`no mail to ${address} reached the relay in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    down: close,
    up: async () => {
      if (!server) await listen();
    },
    stop: close,
  };
}
