import { openSealedText, parseKeyring, sealText, type Keyring } from '@seed/platform-secrets';

/** MESSAGE_SEALING_KEYS is not configured: carrier passwords can be neither sealed nor opened. */
export class CarrierPasswordsUnavailable extends Error {
  override readonly name = 'CarrierPasswordsUnavailable';
}

/**
 * Carrier passwords at rest: sealed (AES-256-GCM) with the platform keyring before they reach the
 * log, opened only where a session binds. The same keyring as sealed SMS texts, so a rotation
 * (a new key first, the old one kept) keeps every stored password readable.
 */
export class CarrierPasswords {
  private readonly keyring: Keyring | null;

  constructor(keyringSpec: string) {
    this.keyring = keyringSpec ? parseKeyring(keyringSpec) : null;
  }

  seal(password: string): string {
    return sealText(this.required(), password);
  }

  /** Throws SealedTextError when the text was sealed with a key no longer in the keyring. */
  open(sealed: string): string {
    return openSealedText(this.required(), sealed);
  }

  private required(): Keyring {
    if (!this.keyring) throw new CarrierPasswordsUnavailable('MESSAGE_SEALING_KEYS is not configured: carrier passwords cannot be sealed or opened');
    return this.keyring;
  }
}
