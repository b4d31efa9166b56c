import { readFileSync } from 'node:fs';
import { gatewayVersion } from '../../functions/shared/version.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

const packageVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

/** The newest release heading of CHANGELOG.md (`## [x.y.z] - date`), skipping `Unreleased`. */
const newestChangelogRelease = (): string | undefined =>
  /^## \[(\d+\.\d+\.\d+)\]/m.exec(readFileSync('CHANGELOG.md', 'utf8'))?.[1];

describe('the release version', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('is the same in package.json, the newest CHANGELOG release and the code', () => {
    expect(newestChangelogRelease()).toBe(packageVersion);
    expect(gatewayVersion).toBe(packageVersion);
  });

  it('is what GET /health reports, with no key', async () => {
    const response = await fetch(`${gateway.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', version: packageVersion });
  });

  it('serves the OpenAPI document at GET /openapi.json, with no key', async () => {
    const response = await fetch(`${gateway.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual(JSON.parse(readFileSync('docs/openapi.json', 'utf8')));
  });
});
