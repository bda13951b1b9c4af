import { IsInt, IsString, Matches, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { PlatformConfig } from '@seed/platform-config';
import { IsKeyring } from '@seed/platform-secrets';

/** Guest links are https, except on this machine (a local `npm start`, the tests). */
function isGuestBaseUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (value === '') return true;
  try {
    const url = new URL(value);
    const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    return (url.protocol === 'https:' || (local && url.protocol === 'http:')) && !url.search && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

const IsGuestBaseUrl = (): PropertyDecorator =>
  ValidateBy({
    name: 'isGuestBaseUrl',
    validator: {
      validate: isGuestBaseUrl,
      defaultMessage: () => 'AGENT_GUEST_BASE_URL must be an absolute https URL without query (http only for localhost / 127.0.0.1)',
    },
  });

/** A room waiting longer than its token lives could not be joined at the end, yet read `waiting`. */
const NotLongerThanTokens = (): PropertyDecorator =>
  ValidateBy({
    name: 'notLongerThanTokens',
    validator: {
      validate: (value, args) => typeof value === 'number' && value <= (args?.object as AgentTokenConfig).AGENT_TOKEN_TTL_SECONDS,
      defaultMessage: () => 'ROOM_VALIDITY_SECONDS must not exceed AGENT_TOKEN_TTL_SECONDS (no agent could join the room at its end)',
    },
  });

const HasLinkPlaceholder = (): PropertyDecorator =>
  ValidateBy({
    name: 'hasLinkPlaceholder',
    validator: { validate: (value) => typeof value === 'string' && value.includes('{link}'), defaultMessage: () => 'AGENT_GUEST_SMS_TEXT must contain {link}' },
  });

export class AgentTokenConfig extends PlatformConfig {
  override HEALTH_PORT = 3130;

  /** Signs auth_tokens and guest tokens (HS256, `kid` header); the first key signs, all verify. */
  @IsKeyring()
  AGENT_TOKEN_SIGNING_KEYS = '';

  /** Seals the guest-link SMS for sms-batch and the tokens crossing Kafka (shared with the gateway). */
  @IsKeyring()
  MESSAGE_SEALING_KEYS = '';

  /** Lifetime of an auth_token (and of its guest link, if the room's expiry is not later). */
  @IsInt() @Min(1) @Max(30 * 24 * 3600)
  AGENT_TOKEN_TTL_SECONDS = 3600;

  /** How long a room waits for its agent before it expires. */
  @IsInt() @Min(1) @Max(7 * 24 * 3600) @NotLongerThanTokens()
  ROOM_VALIDITY_SECONDS = 900;

  /** Where guest links point: `${AGENT_GUEST_BASE_URL}/<guest token>`. Empty: the local agent listener. */
  @IsGuestBaseUrl()
  AGENT_GUEST_BASE_URL = '';

  /** The agent listener's port, for the default guest base URL of a local run. */
  @IsInt() @Min(0) @Max(65535)
  AGENT_API_PORT = 3001;

  /** Text of the guest-link SMS; `{link}` is replaced by the link. */
  @IsString() @MaxLength(600) @HasLinkPlaceholder()
  AGENT_GUEST_SMS_TEXT = 'Join your video call: {link}';

  /** Sender id of the guest-link SMS, as sms-batch accepts one; empty: sms-batch's SMS_DEFAULT_SOURCE. */
  @IsString() @Matches(/^([A-Za-z0-9 ]{1,11}|\+?\d{1,16})?$/, { message: 'AGENT_GUEST_SMS_SOURCE must be at most 11 letters, digits and spaces, or at most 16 digits' })
  AGENT_GUEST_SMS_SOURCE = '';

  /**
   * A token request not committed within this of its issue (less 1 s for clock skew) is not
   * started (503): the gateway has answered it 503 by then, and a room made now would hold its
   * call_reference against the client's retry. Keep it at the gateway's COMMAND_TIMEOUT_MS.
   */
  @IsInt() @Min(2000) @Max(300_000)
  AGENT_MAX_COMMAND_AGE_MS = 5_000;

  /** How often waiting rooms past their expiry are looked for, to record RoomExpired. */
  @IsInt() @Min(100) @Max(600_000)
  ROOM_EXPIRY_SWEEP_MS = 5000;

  get guestBaseUrl(): string {
    return (this.AGENT_GUEST_BASE_URL || `http://127.0.0.1:${this.AGENT_API_PORT}/guest`).replace(/\/+$/, '');
  }
}
