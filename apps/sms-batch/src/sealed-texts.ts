import { isSealed, openSealedText, parseKeyring, type Keyring } from '@seed/platform-secrets';

export class SealedTextRefused extends Error {}

/**
 * Opens the sealed texts of the platform's own senders (see `SmsBatchItem.sealedText`). Kept out of
 * every event and read model: the sealed form travels, and is opened only to count parts and to
 * build the PDUs.
 */
export class SealedTexts {
  private readonly keyring: Keyring | null;

  constructor(keyringSpec: string) {
    this.keyring = keyringSpec ? parseKeyring(keyringSpec) : null;
  }

  open(sealed: string): string {
    if (!this.keyring) throw new SealedTextRefused('MESSAGE_SEALING_KEYS is not configured: sealed texts cannot be opened');
    try {
      return openSealedText(this.keyring, sealed);
    } catch (error) {
      throw new SealedTextRefused(`sealed text refused: ${(error as Error).message}`);
    }
  }

  /** A queue row's text as it must be sent: sealed ones opened, plain ones as they are. */
  sendable(text: string): string {
    return isSealed(text) ? this.open(text) : text;
  }
}
