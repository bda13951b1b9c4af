import { openSealedText, parseKeyring, sealText, SealedTextError, type Keyring } from '@seed/platform-secrets';
import type { SealedReply } from '@seed/agent-token-contracts';

/** A sealed token that does not open: not from our gateway, or a key it does not share. */
export class UnreadableSealError extends Error {}

/**
 * Tokens cross Kafka only sealed (AES-256-GCM, MESSAGE_SEALING_KEYS): the bearer tokens the
 * gateway forwards, and the answers that carry an auth_token or a guest link. Also seals the
 * real text of the guest-link SMS for sms-batch.
 */
export class SealedWire {
  private readonly keys: Keyring;

  constructor(spec: string) {
    this.keys = parseKeyring(spec);
  }

  open(sealed: string): string {
    try {
      return openSealedText(this.keys, sealed);
    } catch (error) {
      if (error instanceof SealedTextError) throw new UnreadableSealError(error.message);
      throw error;
    }
  }

  seal(text: string): string {
    return sealText(this.keys, text);
  }

  reply(body: unknown): SealedReply {
    return { sealed: sealText(this.keys, JSON.stringify(body)) };
  }
}
