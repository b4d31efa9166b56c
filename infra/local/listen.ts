import type { Server } from 'node:http';
import { StartRefusedError } from './start-refused-error.js';

const reasons: Readonly<Record<string, (where: string) => string>> = {
  EADDRINUSE: (where) =>
    `${where} is already in use: stop what listens there, or set PORT (and HOST) to another address`,
  EACCES: (where) => `${where} needs privileges this process does not have: set PORT to a port above 1023`,
  EADDRNOTAVAIL: (where) => `${where} is not an address of this machine: set HOST to one of its addresses`,
};

/** Starts `server` listening; the usual reasons it cannot are refusals with a one-line explanation. */
export const listen = (server: Server, port: number, host: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const reason = reasons[error.code ?? ''];
      reject(reason ? new StartRefusedError(reason(`port ${port} on ${host}`)) : error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
