// Behaviour profiles: the schema, the seeded adversarial profile, and profile files.
export { profileSchema, partialProfileSchema, formatIssues, ProfileError, type DeepPartial } from './schema.ts';
export { adversarialProfile } from './adversarial.ts';
export { profileFromJson, loadProfileFile, resolveProfile } from './load.ts';
