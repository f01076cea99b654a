// Event feed and activity schemas, declared once: the type-pattern grammar (shared with webhook replay),
// the two query shapes and the envelope as served.
import { z } from 'zod';
import { commaList, cursorQuery, idString, limitQuery, msQuery } from '../../contract/validate.ts';
import { isCanonicalAssetKey } from '../assets/index.ts';
import { creditSourceTypeEnum } from '../credits/index.ts';
import { failureCodesOf } from '../../failure-codes.ts';

const WORD = '[a-z][a-z0-9_]*';
/** `*`, `<word>(.<word>)*.*`, or a dotted name such as `trade.settled`. */
const TYPE_PATTERN = new RegExp(`^(\\*|${WORD}(\\.${WORD})*\\.\\*|${WORD}(\\.${WORD})+)$`);

export const typePattern = z.string().max(128).regex(TYPE_PATTERN, 'must be *, <word>.* or a dotted event type such as trade.settled');

/** `types=trade.*,zap.settled`: every entry must be a valid pattern. */
const typesQuery = commaList
  .refine((list) => list.length <= 100, 'at most 100 entries')
  .refine((list) => list.every((t) => TYPE_PATTERN.test(t)), 'each entry must be *, <word>.* or a dotted event type such as trade.settled')
  .optional();

const sinceUntil = <T extends { since_ms?: number; until_ms?: number }>(q: T): boolean =>
  q.since_ms === undefined || q.until_ms === undefined || q.until_ms >= q.since_ms;
const untilIssue = { message: 'until_ms must not be before since_ms', path: ['until_ms'] };

export const eventsQuery = z
  .object({
    types: typesQuery,
    account_id: idString.optional(),
    since_ms: msQuery,
    until_ms: msQuery,
    limit: limitQuery,
    cursor: cursorQuery,
  })
  .refine(sinceUntil, untilIssue);

const assetKeyQuery = z
  .string()
  .max(256)
  .refine(isCanonicalAssetKey, {
    message: 'does not match the canonical asset_key grammar',
    params: { api_code: 'invalid_asset_key' },
  });

export const activityQuery = z
  .object({
    types: typesQuery,
    since_ms: msQuery,
    until_ms: msQuery,
    asset_key: assetKeyQuery.optional(),
    trade_id: idString.optional(),
    zap_id: idString.optional(),
    cancel_id: idString.optional(),
    credit_id: idString.optional(),
    limit: limitQuery,
    cursor: cursorQuery,
  })
  .refine(sinceUntil, untilIssue);

export const activityParams = z.object({ account_id: idString });

/** The envelope (spec: Event envelope) around one family of event types and their data. */
const envelopeOf = <const T extends readonly [string, ...string[]], D extends z.ZodRawShape>(types: T, data: D) =>
  z.object({ event_id: z.string(), type: z.enum(types), created_at_ms: z.number().int(), account_id: z.string(), data: z.object(data) });

const depositIds = { deposit_address_id: z.string(), asset_key: z.string() };
const cancelIds = { cancel_id: z.string(), credit_id: z.string(), client_cancel_id: z.string().optional() };
const tradeIds = { trade_id: z.string(), quote_id: z.string(), client_order_id: z.string().optional() };
const zapIds = { zap_id: z.string(), client_zap_id: z.string().optional() };
const recoveryIds = { recovery_id: z.string(), credit_id: z.string(), asset_key: z.string() };
const exportSource = z.enum(['integrator', 'user_email']);

/**
 * Every event the service publishes (spec: Events), one member per shape of `data`, discriminated by `type`:
 * webhooks, the event feed and account activity carry these. swapsim adds `failure_code` to trade.failed and
 * `leg` (`in`/`out`) to trade.settlement_orphaned and trade.settlement_reconfirmed.
 */
export const eventEnvelope = z
  .discriminatedUnion('type', [
    envelopeOf(['deposit.pending'], { ...depositIds, detected_atoms: z.string() }),
    envelopeOf(['deposit.verified'], { ...depositIds, credit_id: z.string(), credited_atoms: z.string(), source_address: z.string() }),
    envelopeOf(['deposit.flagged'], {
      ...depositIds,
      detected_atoms: z.string(),
      source_address: z.string(),
      tx_hash: z.string(),
      flag_reason: z.enum(['sanctions_match', 'high_risk_score', 'mixer_association', 'partner_flagged']),
      flagged_by: z.enum(['routes', 'partner']),
      partner_flag_category: z.string().optional(),
      partner_flag_message: z.string().optional(),
    }),
    envelopeOf(['deposit.partner_screening'], {
      ...depositIds,
      tx_hash: z.string(),
      source_address: z.string(),
      detected_atoms: z.string(),
      screening_deadline_ms: z.number().int(),
    }),
    envelopeOf(['cancel.created'], cancelIds),
    envelopeOf(['cancel.sent', 'cancel.confirmed'], { ...cancelIds, tx_hash: z.string() }),
    envelopeOf(['cancel.failed'], { ...cancelIds, failure_code: z.enum(failureCodesOf('cancel')) }),
    envelopeOf(['trade.executing', 'trade.filled', 'trade.pending_settle'], tradeIds),
    envelopeOf(['trade.settled'], { ...tradeIds, credit_id: z.string() }),
    envelopeOf(['trade.failed'], { ...tradeIds, failure_code: z.enum(failureCodesOf('trade')) }),
    envelopeOf(['trade.settlement_orphaned', 'trade.settlement_reconfirmed'], { ...tradeIds, leg: z.enum(['in', 'out']) }),
    envelopeOf(
      [
        'zap.awaiting_deposit',
        'zap.executing',
        'zap.filled',
        'zap.pending_settle',
        'zap.settlement_orphaned',
        'zap.settlement_reconfirmed',
      ],
      zapIds,
    ),
    envelopeOf(['zap.settled'], { ...zapIds, credit_id: z.string() }),
    envelopeOf(['zap.failed'], {
      ...zapIds,
      failure_code: z.enum(failureCodesOf('zap')),
      recovery_id: z.string().optional(),
      credit_id: z.string().optional(),
    }),
    envelopeOf(['recovery.created'], recoveryIds),
    envelopeOf(['recovery.claimed'], { ...recoveryIds, cancel_id: z.string() }),
    envelopeOf(['recovery.failed'], { ...recoveryIds, failure_code: z.enum(failureCodesOf('recovery')) }),
    envelopeOf(['destination.suspended'], { destination_id: z.string(), suspended_at_ms: z.number().int(), suspension_reason: z.string() }),
    envelopeOf(['destination.reactivated'], { destination_id: z.string() }),
    envelopeOf(['credit.created'], { credit_id: z.string(), asset_key: z.string(), atoms: z.string(), source_type: creditSourceTypeEnum }),
    envelopeOf(['account.created'], { label: z.string().nullable(), external_id: z.string().nullable() }),
    envelopeOf(['account.wallet_created'], { chain: z.string(), address: z.string(), asset_key: z.string() }),
    envelopeOf(['account.deactivated'], {}),
    envelopeOf(['account.export_initiated'], { export_source: exportSource }),
    envelopeOf(['account.key_exported'], {
      keys: z.array(z.object({ chain: z.string(), address: z.string(), export_bundle: z.string() })),
      export_source: exportSource,
    }),
  ])
  .meta({ id: 'Event' });

/** Every event type, as the union lists it. */
export const EVENT_TYPES: readonly string[] = eventEnvelope.options.flatMap((o) => o.shape.type.options);
