/**
 * One of each credential shape the redaction must recognize, each as a
 * line a tool, an error or a model could print, with the secret part that
 * must never be found anywhere after redaction. The values are fake,
 * assembled from pieces so no scanner mistakes this file for a leak, and
 * distinct, so a search for one finds only it.
 */
export interface CredentialSample {
  /** The shape, e.g. `x-api-key header`. */
  readonly shape: string;
  /** The line as it would be printed. */
  readonly text: string;
  /** What must not survive: the secret part of `text`. */
  readonly secret: string;
}

const join = (...parts: string[]): string => parts.join('');
const pemBody = join('MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ', 'C7VJTUt9Us8cKj');
const gcpBody = join('MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQ', 'DgcpSampleKey');

const samples: ReadonlyArray<readonly [string, string, string]> = [
  ['lower-case bearer', 'Authorization: bearer %s', join('lcBearer', '0a1b2c3d4e5f6a7b8c9d')],
  ['Token scheme', 'curl -H "Authorization: Token %s" https://api.example.org', join('9944b09199c62bcf', '9418ad846dd0e4bbdfc6ee4b')],
  ['x-api-key header', 'x-api-key: %s', join('xak', 'Zr4Q9wT2mN8pL5vK')],
  ['JSON password', '{"user": "ada", "password": "%s"}', join('correct horse ', 'battery st4ple')],
  ['PGPASSWORD', 'PGPASSWORD=%s psql -h db -U strata', join('pgS3cret', 'Pa55word')],
  ['Stripe live key', 'charge with %s', join('sk_', 'live_', '51HqLyjWDarjtT1zdp7dcStripe')],
  ['bare JWT', 'session %s expired', join('eyJhbGciOiJIUzI1NiJ9', '.eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U')],
  ['PEM private key', `-----BEGIN RSA PRIVATE KEY-----\n%s\nAbCdEfGh+/=\n-----END RSA PRIVATE KEY-----`, pemBody],
  ['AWS access key', 'aws_access_key_id = %s', join('AKIA', 'QWERTYUIOPASDFGH')],
  ['AWS secret key', 'AWS_SECRET_ACCESS_KEY=%s', join('wJalrXUtnFEMI/K7MDENG/bPxRfiCY', 'SecretKeyA')],
  ['GCP API key', 'https://maps.example.org/?key=%s', join('AIza', 'SyD-9tSrke72PouQMnMX-a7eZSW0jkGcpAB')],
  ['GCP OAuth token', 'access %s granted', join('ya29.', 'a0AfH6SMBxGcpOauthToken1234567890')],
  ['GCP service-account key', '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n%s\\n-----END PRIVATE KEY-----\\n"}', gcpBody],
  ['Azure storage key', 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s;EndpointSuffix=core.windows.net', join('Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu', 'FQ2UVErCz4I6tq/AzureKey==')],
  ['GitHub token', 'remote: %s', join('ghp_', 'R3aLlyN0tAT0k3nButL00ksL1k30neXYZ')],
  ['GitLab token', 'PRIVATE-TOKEN: %s', join('glpat-', 'Xy12Xy12Xy12GitLab34')],
  ['Slack token', 'slack %s', join('xoxb-', '123456789012-', 'SlackToken42')],
  ['OpenAI key', 'OPENAI_API_KEY=%s', join('sk-proj-', 'A1b2C3d4E5f6G7h8OpenAI9')],
  ['Anthropic key', 'used %s for the call', join('sk-ant-', 'api03-Zz9Yy8Xx7Anthropic6')],
  ['URL password', 'connect postgres://strata:%s@db.internal:5432/app failed', join('hunter2', 'UrlPass')],
];

export const CREDENTIAL_SAMPLES: readonly CredentialSample[] = samples.map(([shape, template, secret]) => ({ shape, text: template.replace('%s', secret), secret }));

/** Every sample's line, one a line: what a leaky tool prints. */
export function credentialSampleText(): string {
  return CREDENTIAL_SAMPLES.map((sample) => sample.text).join('\n');
}

/** The shapes whose secret occurs in `haystack` (text, or raw bytes read as Latin-1 and as UTF-8). */
export function leakedCredentials(haystack: string | Uint8Array): string[] {
  const texts = typeof haystack === 'string' ? [haystack] : [Buffer.from(haystack).toString('latin1'), Buffer.from(haystack).toString('utf8')];
  return CREDENTIAL_SAMPLES.filter((sample) => texts.some((text) => text.includes(sample.secret) || text.includes(JSON.stringify(sample.secret).slice(1, -1)))).map((sample) => sample.shape);
}
