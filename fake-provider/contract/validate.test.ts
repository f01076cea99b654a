// parseWith's error codes: a missing field is parameter_missing, a wrong one invalid_parameter, a value outside
// an enum invalid_enum, a refinement's own code as it names it. The hot path parses without keeping inputs and
// parses a failure again to tell missing from wrong: these hold both parses to the same answers.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from './errors.ts';
import { idString, limitQuery, parseWith } from './validate.ts';

const schema = z.object({
  account_id: idString,
  side: z.enum(['buy', 'sell']).optional(),
  limit: limitQuery,
  nested: z.object({ asset_key: z.string().refine((s) => s.includes(':'), { params: { api_code: 'invalid_asset_key' } }) }).optional(),
});

function refusal(input: unknown): { code: string; param: string | undefined; message: string } {
  try {
    parseWith(schema, input, 'query');
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { code: e.code, param: e.param, message: e.message };
  }
  throw new Error('parsed');
}

describe('parseWith', () => {
  it('returns the parsed value, transforms applied and undeclared fields dropped', () => {
    expect(parseWith(schema, { account_id: 'acct_1', limit: '20', extra: 'x' }, 'query')).toEqual({ account_id: 'acct_1', limit: 20 });
  });

  it('a missing field is parameter_missing, a wrong type or value invalid_parameter', () => {
    expect(refusal({})).toEqual({ code: 'parameter_missing', param: 'account_id', message: 'account_id is required' });
    expect(refusal({ account_id: 7 })).toMatchObject({ code: 'invalid_parameter', param: 'account_id' });
    expect(refusal({ account_id: '' })).toMatchObject({ code: 'invalid_parameter', param: 'account_id' });
    expect(refusal({ account_id: 'a', limit: '500' })).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });

  it('a value outside an enum is invalid_enum; a refinement answers its own code at its nested path', () => {
    expect(refusal({ account_id: 'a', side: 'hold' })).toEqual({
      code: 'invalid_enum',
      param: 'side',
      message: 'side must be one of: buy, sell',
    });
    expect(refusal({ account_id: 'a', nested: { asset_key: 'eth' } })).toMatchObject({
      code: 'invalid_asset_key',
      param: 'nested.asset_key',
    });
    expect(refusal({ account_id: 'a', nested: {} })).toMatchObject({ code: 'parameter_missing', param: 'nested.asset_key' });
  });

  it('a body that is no object at all is invalid_parameter on the whole input', () => {
    expect(refusal('text')).toMatchObject({ code: 'invalid_parameter', param: undefined });
    expect(refusal(undefined)).toMatchObject({ code: 'parameter_missing', param: undefined, message: 'query is required' });
  });
});
