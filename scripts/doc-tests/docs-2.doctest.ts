// `npm run test:docs`: docs/*.md's blocks (the second of every two) (docs/testing.md#doc-tests); split so the halves run in two workers.
import { docTests } from './suite.ts';
import { markdownFiles } from './runner.ts';

docTests(
  markdownFiles().filter((f) => !f.endsWith('/README.md')),
  { index: 1, of: 2 },
);
