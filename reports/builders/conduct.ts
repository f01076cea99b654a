// Client-conduct findings as a table, shared by scenario and verify reports. Accepts the report type's
// fields and GET /_sim/conduct's (api_key_suffix, message), since producers may pass either through.
import type { ConductFinding } from '../types.ts';
import { type Block, pill, show } from './model.ts';

type Loose = ConductFinding & { api_key_suffix?: string; message?: string };

export function conductTable(raw: unknown): Extract<Block, { type: 'table' }> {
  const findings = (Array.isArray(raw) ? raw : []).filter((f): f is Loose => typeof f === 'object' && f !== null);
  const rows = findings.map((f) => [
    pill(String(f.kind ?? '?'), 'warn'),
    f.api_key ?? (f.api_key_suffix ? `…${f.api_key_suffix}` : ''),
    show(f.detail ?? f.message ?? ''),
    { text: (Array.isArray(f.request_ids) ? f.request_ids : []).slice(0, 6).join(', '), mono: true },
  ]);
  return {
    type: 'table',
    columns: ['finding', 'API key', 'detail', 'request ids'],
    rows,
    empty: 'No client-conduct findings: the client honoured Retry-After, poll_after_ms, idempotency and pagination.',
  };
}
