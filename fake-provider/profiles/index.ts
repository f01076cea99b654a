// Behaviour profiles: the schema, the seeded adversarial profile, and profile files.
export { profileSchema, formatIssues, ProfileError } from './schema.ts';
export { adversarialProfile } from './adversarial.ts';
export { profileFromJson, loadProfileFile, resolveProfile } from './load.ts';
