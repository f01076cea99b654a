// zod with `.openapi()` (zod-to-openapi), before any schema is made: zod 4 copies a class's methods onto each
// instance as it is constructed, so a schema made before the extension never gets `.openapi` (the package's
// GET /v1/openapi.json answered 500 when a bundle evaluated the schemas first). The package's entry points
// (index.ts, cli/main.ts) import this module first; http/openapi.ts imports it too.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);
