// /v1 recovery routes: the integrator's activate (bearer, idempotent) and the user's public claim.
// Parse → call the model → serialize, nothing else. There is no read endpoint (spec).
import { defineRoute } from '../../contract/route.ts';
import { activateRecovery, recoverFunds, serializeActivated, serializeClaimed } from './model.ts';
import { activateRecoveryBody, activateRecoveryReply, recoverFundsBody, recoverFundsReply, recoveryParams } from './schemas.ts';

const tag = 'Recoveries';

export const recoveryRoutes = [
  defineRoute({
    method: 'post',
    path: '/recoveries/:recovery_id/activate',
    tag,
    summary: 'Activate a failed-zap recovery (emails the user an OTP)',
    idempotent: true,
    params: recoveryParams,
    body: activateRecoveryBody,
    response: activateRecoveryReply,
    handler: ({ params, body }, { world, org }) => ({
      body: { recovery: serializeActivated(activateRecovery(world, org.organization_id, params.recovery_id, body)) },
    }),
  }),
  defineRoute({
    auth: 'public',
    method: 'post',
    path: '/public/recover-funds',
    tag,
    summary: 'Claim a recovery with the emailed OTP',
    status: 202,
    body: recoverFundsBody,
    response: recoverFundsReply,
    handler: ({ body }, { world, ip }) => ({ status: 202, body: { recovery: serializeClaimed(world, recoverFunds(world, ip, body)) } }),
  }),
];
