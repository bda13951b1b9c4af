import { randomInt } from 'node:crypto';
import { digestsEqual, keyedHash, parseKeyring, sealText, type Keyring } from '@seed/platform-secrets';
import type { PresentedCode, VerificationStartedV1 } from '@seed/verification-contracts';
import { formatCode } from '@seed/verification-domain';

/** A presented code was hashed by the gateway without the key the verification's hash was made with. */
export class CodeKeyUnavailableError extends Error {
  override readonly name = 'CodeKeyUnavailableError';
}

/**
 * Everything the service does with codes: draws them from the CSPRNG, keeps only their keyed hash
 * (VERIFY_CODE_HASH_KEYS) and the sealed SMS text (MESSAGE_SEALING_KEYS), and compares presented
 * codes in constant time. A code exists in clear only in memory, between drawing and sealing.
 */
export class CodeSecrets {
  private readonly hashKeys: Keyring;
  private readonly sealingKeys: Keyring;

  constructor(hashKeys: string, sealingKeys: string) {
    this.hashKeys = parseKeyring(hashKeys);
    this.sealingKeys = parseKeyring(sealingKeys);
  }

  newCode(length: number): string {
    return formatCode(randomInt(0, 10 ** length), length);
  }

  hash(uid: string, code: string): { codeHash: string; codeHashKeyId: string } {
    const { id, key } = this.hashKeys.current;
    return { codeHash: keyedHash(key, uid, code), codeHashKeyId: id };
  }

  seal(text: string): string {
    return sealText(this.sealingKeys, text);
  }

  /** Whether the presented code is the verification's; throws when its key's digest is missing. */
  matches(started: Pick<VerificationStartedV1, 'codeHash' | 'codeHashKeyId'>, presented: PresentedCode): boolean {
    const digest = presented.digests[started.codeHashKeyId];
    if (typeof digest !== 'string') {
      throw new CodeKeyUnavailableError(`the code was not hashed with key "${started.codeHashKeyId}": VERIFY_CODE_HASH_KEYS differ between services`);
    }
    return digestsEqual(digest, started.codeHash);
  }
}
