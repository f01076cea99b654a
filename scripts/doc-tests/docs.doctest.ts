// `npm run test:docs`: docs/*.md's blocks and links (docs/testing.md#doc-tests).
import { docTests } from './suite.ts';
import { markdownFiles } from './runner.ts';

docTests(markdownFiles().filter((f) => !f.endsWith('/README.md')));
