// node:http for ES modules. `import { createServer } from 'node:http'` makes Node build the
// module's namespace, which reads every lazy export of node:http and so loads Node's fetch (undici,
// web streams): ~13 MiB more RSS in every process that serves or calls HTTP. Required through
// CommonJS it is not loaded. Type-only imports from 'node:http' are free and stay as they are.
import { createRequire } from 'node:module';

const http: typeof import('node:http') = createRequire(import.meta.url)('node:http');

export const { Agent, createServer, request } = http;
