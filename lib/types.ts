// The resource and event types integrators see, as the zod schemas that validate and document them give
// them (z.output): declared once, in each resource's schemas.ts. Types only.
import type { z } from 'zod';
import type { account } from '../fake-provider/resources/accounts/schemas.ts';
import type { asset, resolvedAsset, symbolRecord } from '../fake-provider/resources/assets/schemas.ts';
import type { cancel } from '../fake-provider/resources/cancels/schemas.ts';
import type { balance, credit } from '../fake-provider/resources/credits/schemas.ts';
import type { depositAddress, simDeposit } from '../fake-provider/resources/deposits/schemas.ts';
import type { destination } from '../fake-provider/resources/destinations/schemas.ts';
import type { eventEnvelope } from '../fake-provider/resources/events/schemas.ts';
import type { historyRecord } from '../fake-provider/resources/history/schemas.ts';
import type { candle, market } from '../fake-provider/resources/markets/schemas.ts';
import type { activatedRecovery, claimedRecovery } from '../fake-provider/resources/recoveries/schemas.ts';
import type { quote, rfq } from '../fake-provider/resources/rfqs/schemas.ts';
import type { trade } from '../fake-provider/resources/trades/schemas.ts';
import type { delivery, webhook } from '../fake-provider/resources/webhooks/schemas.ts';
import type { zap, zapListItem } from '../fake-provider/resources/zaps/schemas.ts';
import type { errorEnvelope } from '../fake-provider/http/openapi.ts';

export type Account = z.output<typeof account>;
export type Asset = z.output<typeof asset>;
export type ResolvedAsset = z.output<typeof resolvedAsset>;
export type AssetSymbol = z.output<typeof symbolRecord>;
export type Balance = z.output<typeof balance>;
export type Cancel = z.output<typeof cancel>;
export type Credit = z.output<typeof credit>;
export type DepositAddress = z.output<typeof depositAddress>;
/** A landed deposit as the control plane shows it (`sim.deposit()`, `GET /_sim/deposits`). */
export type SimDeposit = z.output<typeof simDeposit>;
export type Destination = z.output<typeof destination>;
/** Every event, discriminated by `type`: `if (e.type === 'trade.settled') e.data.credit_id`. */
export type Event = z.output<typeof eventEnvelope>;
export type EventType = Event['type'];
/** The event of one type (or types): `EventOf<'deposit.verified'>['data']`. */
export type EventOf<T extends EventType> = Event extends infer E
  ? E extends { type: infer U }
    ? T extends U
      ? Omit<E, 'type'> & { type: T }
      : never
    : never
  : never;
export type HistoryRecord = z.output<typeof historyRecord>;
export type Market = z.output<typeof market>;
export type Candle = z.output<typeof candle>;
export type Recovery = z.output<typeof activatedRecovery> | z.output<typeof claimedRecovery>;
export type Rfq = z.output<typeof rfq>;
export type Quote = z.output<typeof quote>;
export type Trade = z.output<typeof trade>;
export type Webhook = z.output<typeof webhook>;
export type Delivery = z.output<typeof delivery>;
export type Zap = z.output<typeof zap>;
/** A zap as `GET /zaps` lists it. */
export type ZapListItem = z.output<typeof zapListItem>;
/** The spec's error envelope, the body of every error answer. */
export type ErrorEnvelope = z.output<typeof errorEnvelope>;
export type ApiError = ErrorEnvelope['error'];
