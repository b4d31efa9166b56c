import { writeFileSync } from 'node:fs';
import { openApiText } from './openapi-document.js';

/** `npm run openapi`: writes docs/openapi.json, the document `GET /openapi.json` serves. */
writeFileSync('docs/openapi.json', openApiText());
console.log('wrote docs/openapi.json');
