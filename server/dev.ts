// `astro dev` with the same back end: the Vite server gets the backend paths and every
// page request gets the same `locals` as in production (ARCHITECTURE.md, rules of the house).
import { clientAddressOf } from './http/client-address.ts';
import type { AstroIntegration } from 'astro';
import { createApp } from './app.ts';
import { prepareDatabase } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './log.ts';

export function backendIntegration(): AstroIntegration {
  return {
    name: 'atelier-backend',
    hooks: {
      'astro:server:setup': async ({ server }) => {
        const address = server.config.server.port ?? 4321;
        const config = loadConfig(process.env, { port: Number(address) });
        const logger = createLogger(config.logLevel);
        const database = await prepareDatabase(config, logger);
        const app = await createApp({ config, database, logger });
        server.httpServer?.once('close', () => void app.close());
        if (server.httpServer) app.attachWebSocket(server.httpServer as import('node:http').Server);
        server.middlewares.use((req, res, next) => {
          app
            .handleBackend(req, res)
            .then((handled) => {
              if (handled) return;
              Reflect.set(req, Symbol.for('astro.locals'), { services: app.services, clientAddress: clientAddressOf(req, config.trustProxy) });
              next();
            })
            .catch(next);
        });
      },
    },
  };
}
