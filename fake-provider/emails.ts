// The simulated mailbox: OTP emails the service sends (recovery, export). The control plane's inbox
// reads it; nothing is sent anywhere. OTP flows arrive with the recovery and export lifecycles.
import { defineStore, type World } from './world.ts';

export interface Email {
  account_id: string;
  email: string;
  purpose: 'recovery' | 'export';
  otp_code: string;
  sent_at_ms: number;
}

export const emailStore = defineStore('emails', () => [] as Email[]);

export function sendEmail(world: World, email: Email): void {
  emailStore(world).push(email);
}

export function emailsFor(world: World, account_id?: string): Email[] {
  return emailStore(world).filter((e) => account_id === undefined || e.account_id === account_id);
}

/** A deleted organization: the mail its accounts got goes. */
export function forgetEmails(world: World, accounts: ReadonlySet<string>): void {
  const mail = emailStore(world);
  const kept = mail.filter((e) => !accounts.has(e.account_id));
  mail.length = 0;
  mail.push(...kept);
}
