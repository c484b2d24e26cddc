import { loadConfig } from '../config';
import { parsePostgresUrl } from './postgres-connection';

describe('POSTGRES_URL', () => {
  it('passes a URI with several hosts to the client, and takes target_session_attrs, sslmode and connect_timeout as options', () => {
    const target = parsePostgresUrl(
      'postgres://rebac:s%40cret@pg-a:5432,pg-b:5433/events?target_session_attrs=read-write&sslmode=require&connect_timeout=3&application_name=cmd',
    );
    expect(target).toEqual({
      url: 'postgres://rebac:s%40cret@pg-a:5432,pg-b:5433/events?application_name=cmd',
      // The client's own read-write would take a hot standby (PostgreSQL 14+) for a primary.
      options: { target_session_attrs: 'primary', ssl: 'require', connect_timeout: 3 },
      description: 'pg-a:5432,pg-b:5433/events',
    });
    expect(target.description).not.toContain('cret');
  });

  it("reads libpq's keyword form, quoted values and one port per host included", () => {
    const target = parsePostgresUrl(
      "host=pg-a,pg-b port=5432,5433 dbname=events user=rebac password='a b\\'c' target_session_attrs=primary",
    );
    expect(target).toEqual({
      url: undefined,
      options: {
        host: ['pg-a', 'pg-b'],
        port: [5432, 5433],
        database: 'events',
        username: 'rebac',
        password: "a b'c",
        target_session_attrs: 'primary',
      },
      description: 'pg-a:5432,pg-b:5433/events',
    });
    expect(parsePostgresUrl('host=pg-a,pg-b port=6432 dbname=x').options).toMatchObject({ host: ['pg-a', 'pg-b'], port: [6432, 6432] });
  });

  it("takes libpq's `any` as the client's default, and maps sslmode to the client's TLS settings", () => {
    expect(parsePostgresUrl('postgres://h/db?target_session_attrs=any').options).toEqual({ target_session_attrs: undefined });
    expect(parsePostgresUrl('host=h target_session_attrs=read-write').options.target_session_attrs).toBe('primary');
    expect(parsePostgresUrl('host=h target_session_attrs=read-only').options.target_session_attrs).toBe('standby');
    expect(parsePostgresUrl('host=h sslmode=disable').options.ssl).toBe(false);
    expect(parsePostgresUrl('host=h sslmode=allow').options.ssl).toBe('prefer');
    expect(parsePostgresUrl('host=h sslmode=verify-full').options.ssl).toBe('verify-full');
    expect(typeof parsePostgresUrl('host=h sslmode=verify-ca').options.ssl).toBe('object');
  });

  it('refuses what it would otherwise ignore or misread, saying what', () => {
    expect(() => parsePostgresUrl('')).toThrow(/empty/);
    expect(() => parsePostgresUrl('mysql://h/db')).toThrow(/postgres:\/\/ .* URI or libpq keywords/);
    expect(() => parsePostgresUrl('postgres://h/db?target_session_attrs=leader')).toThrow(/target_session_attrs 'leader'/);
    expect(() => parsePostgresUrl('postgres://h/db?sslmode=sometimes')).toThrow(/sslmode 'sometimes'/);
    expect(() => parsePostgresUrl('postgres://h/db?load_balance_hosts=random')).toThrow(
      /'load_balance_hosts' is not one this service takes/,
    );
    expect(() => parsePostgresUrl('postgres://h:port/db')).toThrow(/port of 'h:port' is not a number/);
    expect(() => parsePostgresUrl('host=a,b,c port=1,2')).toThrow(/2 ports for 3 hosts/);
    expect(() => parsePostgresUrl('host=a hostaddr=10.0.0.1')).toThrow(/keyword 'hostaddr'/);
    expect(() => parsePostgresUrl("host=a password='unterminated")).toThrow(/cannot read/);
    expect(() => parsePostgresUrl('host=a connect_timeout=soon')).toThrow(/connect_timeout 'soon'/);
  });

  it('is checked when the configuration is loaded, and EVENT_STORE=postgres needs it', () => {
    expect(loadConfig({ EVENT_STORE: 'postgres', POSTGRES_URL: 'postgres://h/db' }).EVENT_STORE).toBe('postgres');
    expect(() => loadConfig({ EVENT_STORE: 'postgres' })).toThrow(/EVENT_STORE=postgres needs POSTGRES_URL/);
    expect(() => loadConfig({ EVENT_STORE: 'postgres', POSTGRES_URL: 'postgres://h/db?target_session_attrs=leader' })).toThrow(
      /POSTGRES_URL: target_session_attrs 'leader' is not one of libpq's/,
    );
  });
});
