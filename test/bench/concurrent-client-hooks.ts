/**
 * The runtime interface client's native addon as Lambda Managed Instances need it: like
 * `nativeClientHooks` (infra/build/runtime-interface-client.ts), plus `next()`. In multi-concurrency
 * mode each of the client's worker threads polls for its next invocation while its invocations stream
 * their responses; polled over HTTP (`AWS_LAMBDA_NODEJS_USE_ALTERNATIVE_CLIENT_1`), the poll would hold
 * the one socket the client's HTTP agent allows, and no streamed response could be posted. Lambda polls
 * through the addon, apart from that agent; so does this stand-in, on an agent of its own.
 */
const hooksSource = `
import { registerHooks } from 'node:module';
const SHIM = 'file:///aws-lambda-ric/rapid-client-concurrent.cjs';
const source = \`
const http = require('node:http');
const [hostname, port] = process.env.AWS_LAMBDA_RUNTIME_API.split(':');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const post = (path, body) => {
  const request = http.request({ hostname, port, path, method: 'POST', agent, headers: { 'content-type': 'application/json' } });
  request.on('error', () => {});
  request.end(body);
};
module.exports = {
  next: () => new Promise((resolve, reject) => {
    const request = http.request({ hostname, port, path: '/2018-06-01/runtime/invocation/next', agent }, (response) => {
      let bodyJson = '';
      response.setEncoding('utf8').on('data', (chunk) => { bodyJson += chunk; }).on('end', () => resolve({ bodyJson, headers: response.headers }));
    });
    request.on('error', reject).end();
  }),
  done(id, body) { post('/2018-06-01/runtime/invocation/' + id + '/response', body); },
  error(id, body) { post('/2018-06-01/runtime/invocation/' + id + '/error', body); },
};\`;
const hooks = registerHooks({
  resolve: (specifier, context, next) =>
    specifier.endsWith('rapid-client.node') ? { url: SHIM, format: 'commonjs', shortCircuit: true } : next(specifier, context),
  load: (url, context, next) => {
    if (url !== SHIM) return next(url, context);
    queueMicrotask(() => hooks.deregister());
    return { format: 'commonjs', source, shortCircuit: true };
  },
});
`;

export const concurrentClientHooks = `data:text/javascript,${encodeURIComponent(hooksSource)}`;
