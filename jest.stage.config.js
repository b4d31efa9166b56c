import base from './jest.config.js';

/**
 * `npm run test:stage`: the integration cases against the gateway at GATEWAY_URL (a separately
 * started `npm start` or a deployed stage), one file at a time, since they share that gateway.
 */
if (!process.env.GATEWAY_URL || !process.env.GATEWAY_ADMIN_KEY) {
  throw new Error('npm run test:stage needs GATEWAY_URL and GATEWAY_ADMIN_KEY (the gateway to test and an admin key of it).');
}

export default {
  ...base,
  testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
  maxWorkers: 1,
  testTimeout: 60000,
};
