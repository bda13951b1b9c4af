import { decodeProtectedHeader, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Keyring } from '@seed/platform-secrets';

const ALGORITHM = 'HS256';
const ISSUER = 'seed-messaging';
const AGENT = { audience: 'agent-api', typ: 'agent+jwt' } as const;

export interface AgentClaims {
  tokenId: string;
  agentId: string;
  accountId: string;
  roomId: string | null;
  issuedAt: Date;
  expiresAt: Date;
}

/** The token is not one of ours, was altered, has expired, or names a key we no longer hold. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
}

/**
 * The JWTs of the agent API: HS256 with the current key of AGENT_TOKEN_SIGNING_KEYS, its id in
 * the `kid` header. Verification picks the key by `kid`, so tokens signed before a rotation stay
 * valid until they expire as long as their key is still listed (after the current one).
 */
export class AgentTokens {
  constructor(private readonly keys: Keyring) {}

  get currentKeyId(): string {
    return this.keys.current.id;
  }

  signAgentToken(claims: AgentClaims): Promise<string> {
    return this.signAgentTokenWith(claims, this.keys.current.id);
  }

  /** With a given key: a redelivered command gets back the very token it was first given. */
  signAgentTokenWith(claims: AgentClaims, keyId: string): Promise<string> {
    const payload: JWTPayload = { acc: claims.accountId, ...(claims.roomId ? { room: claims.roomId } : {}) };
    return this.sign(payload, AGENT.typ, AGENT.audience, claims.agentId, claims, keyId, claims.tokenId);
  }

  async verifyAgentToken(token: string, now: Date): Promise<AgentClaims> {
    const payload = await this.verify(token, AGENT, now);
    const { sub, jti, acc, room } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof acc !== 'string' || (room !== undefined && typeof room !== 'string')) {
      throw new InvalidTokenError('the token lacks its claims');
    }
    return { tokenId: jti, agentId: sub, accountId: acc, roomId: room ?? null, ...times(payload) };
  }

  private async sign(
    payload: JWTPayload,
    typ: string,
    audience: string,
    subject: string,
    time: { issuedAt: Date; expiresAt: Date },
    keyId: string,
    tokenId: string,
  ): Promise<string> {
    const key = this.keys.byId(keyId);
    if (!key) throw new Error(`signing key ${keyId} is not in AGENT_TOKEN_SIGNING_KEYS`);
    const jwt = new SignJWT(payload)
      .setProtectedHeader({ alg: ALGORITHM, kid: keyId, typ })
      .setIssuer(ISSUER)
      .setAudience(audience)
      .setSubject(subject)
      .setIssuedAt(seconds(time.issuedAt))
      .setExpirationTime(seconds(time.expiresAt))
      .setJti(tokenId);
    return jwt.sign(key);
  }

  private async verify(token: string, kind: { audience: string; typ: string }, now: Date): Promise<JWTPayload> {
    if (token.length > 4096) throw new InvalidTokenError('the token is too long');
    let keyId: unknown;
    try {
      keyId = decodeProtectedHeader(token).kid;
    } catch {
      throw new InvalidTokenError('not a token');
    }
    const key = typeof keyId === 'string' ? this.keys.byId(keyId) : undefined;
    if (!key) throw new InvalidTokenError('the token names no signing key that is held');
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: kind.audience,
        typ: kind.typ,
        currentDate: now,
        clockTolerance: 0,
        requiredClaims: ['iat', 'exp', 'sub'],
      });
      return payload;
    } catch (error) {
      if (error instanceof errors.JOSEError) throw new InvalidTokenError(error.code === 'ERR_JWT_EXPIRED' ? 'the token has expired' : 'the token is not valid');
      throw error;
    }
  }
}

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

function times(payload: JWTPayload): { issuedAt: Date; expiresAt: Date } {
  return { issuedAt: new Date((payload.iat ?? 0) * 1000), expiresAt: new Date((payload.exp ?? 0) * 1000) };
}
