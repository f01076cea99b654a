// `npm run test:docs`: docs/*.md's blocks (the first of every two) and links (docs/testing.md#doc-tests); split so the halves run in two workers.
import { docTests } from './suite.ts';
import { markdownFiles } from './runner.ts';

docTests(
  markdownFiles().filter((f) => !f.endsWith('/README.md')),
  { index: 0, of: 2 },
);
