/** What an API key may do in a sub-account: the repository answers it, the cache keeps it. */
export interface KeyAccess {
  accountId: string;
  /** Whether the sub-account asked about belongs to the key's account. */
  ownsSubAccount: boolean;
  /** The account's own request rate limit; null for the gateway's default. */
  requestsPerSecond: number | null;
}
