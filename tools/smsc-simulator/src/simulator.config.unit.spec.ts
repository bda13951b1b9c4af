import { SimulatorConfigError, applyConfigPatch, defaultSimulatorConfig, loadSimulatorConfig, publicConfig, resolveSimulatorConfig } from './simulator.config';

describe('simulator configuration', () => {
  it('has the documented defaults', () => {
    expect(loadSimulatorConfig({})).toEqual(defaultSimulatorConfig());
    expect(loadSimulatorConfig({})).toMatchObject({ smppPort: 2775, httpPort: 2776, systemId: 'seed', password: 'secret', receiptDelayMs: 200, messageIdFormat: 'hex', throttlePerSecond: 0, window: 100 });
    expect(loadSimulatorConfig({})).toMatchObject({ host: '0.0.0.0', httpHost: '127.0.0.1', messageIdStart: null, throttleAll: false, refuseBinds: false, temporaryErrorProbability: 0, temporaryErrorStatus: 0x08 });
  });

  it('reads every variable', () => {
    const config = loadSimulatorConfig({
      SMSC_HOST: '127.0.0.1', SMSC_HTTP_HOST: '0.0.0.0', SMSC_PORT: '2800', SMSC_HTTP_PORT: '2801', SMSC_SYSTEM_ID: 'acme', SMSC_PASSWORD: 'pw',
      SMSC_RECEIPT_DELAY_MS: '0', SMSC_FINAL_STATES: 'DELIVRD:90, UNDELIV:5,EXPIRED:3,REJECTD:2',
      SMSC_MESSAGE_ID_FORMAT: 'decimal', SMSC_THROTTLE_PER_SECOND: '50', SMSC_WINDOW: '10', SMSC_DROP_PROBABILITY: '0.25',
      SMSC_REJECT_PREFIXES: '+4477009,1555', SMSC_SUBMIT_DELAY_MS: '5', SMSC_RECEIPT_ACK_TIMEOUT_MS: '2000',
      SMSC_RECEIPT_RETRIES: '1', SMSC_MAX_MESSAGES: '10', LOG_LEVEL: 'warn',
      SMSC_MESSAGE_ID_START: '536870912', SMSC_THROTTLE_ALL: 'true', SMSC_REFUSE_BINDS: '1',
      SMSC_TEMPORARY_ERROR_PROBABILITY: '0.5', SMSC_TEMPORARY_ERROR_STATUS: '0x00000045',
      SMSC_TLS_CERT_FILE: '/etc/smsc/cert.pem', SMSC_TLS_KEY_FILE: '/etc/smsc/key.pem', SMSC_INBOUND_RESPONSE_TIMEOUT_MS: '2500',
      SMSC_ANSWER_SUBMITS: 'false',
    });
    expect(config).toEqual({
      host: '127.0.0.1', httpHost: '0.0.0.0', smppPort: 2800, httpPort: 2801, systemId: 'acme', password: 'pw', receiptDelayMs: 0,
      finalStates: [{ state: 'DELIVRD', weight: 90 }, { state: 'UNDELIV', weight: 5 }, { state: 'EXPIRED', weight: 3 }, { state: 'REJECTD', weight: 2 }],
      messageIdFormat: 'decimal', throttlePerSecond: 50, window: 10, dropProbability: 0.25, rejectPrefixes: ['4477009', '1555'],
      submitDelayMs: 5, receiptAckTimeoutMs: 2000, receiptRetries: 1, maxMessages: 10, logLevel: 'warn',
      messageIdStart: 0x20000000, throttleAll: true, refuseBinds: true, temporaryErrorProbability: 0.5, temporaryErrorStatus: 0x45,
      tlsCertFile: '/etc/smsc/cert.pem', tlsKeyFile: '/etc/smsc/key.pem', inboundResponseTimeoutMs: 2500, answerSubmits: false,
    });
  });

  it('lists every bad value at once', () => {
    try {
      loadSimulatorConfig({ SMSC_PORT: 'x', SMSC_WINDOW: '0', SMSC_FINAL_STATES: 'DELIVERED:1', SMSC_DROP_PROBABILITY: '2', SMSC_PASSWORD: 'far-too-long' });
      throw new Error('expected a SimulatorConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(SimulatorConfigError);
      expect((error as SimulatorConfigError).problems.map((p) => p.split(':')[0])).toEqual(['SMSC_PORT', 'SMSC_PASSWORD', 'SMSC_FINAL_STATES', 'SMSC_WINDOW', 'SMSC_DROP_PROBABILITY']);
    }
  });

  it('takes typed settings for startSimulator, with the same checks', () => {
    expect(resolveSimulatorConfig({ smppPort: 0, finalStates: [{ state: 'REJECTD', weight: 1 }] })).toMatchObject({ smppPort: 0, httpPort: 2776, finalStates: [{ state: 'REJECTD', weight: 1 }] });
    expect(() => resolveSimulatorConfig({ window: -1 })).toThrow('window: must be an integer');
  });

  describe('changes at run time', () => {
    const current = defaultSimulatorConfig();

    it('applies a JSON subset', () => {
      const next = applyConfigPatch(current, { throttlePerSecond: 10, finalStates: { DELIVRD: 1, UNDELIV: 1 }, rejectPrefixes: ['+1555'], messageIdFormat: 'decimal' });
      expect(next).toMatchObject({ throttlePerSecond: 10, rejectPrefixes: ['1555'], messageIdFormat: 'decimal', window: 100, finalStates: [{ state: 'DELIVRD', weight: 1 }, { state: 'UNDELIV', weight: 1 }] });
      expect(current.throttlePerSecond).toBe(0);
    });

    it('switches the carrier faults on and off', () => {
      const faulty = applyConfigPatch(current, { refuseBinds: true, throttleAll: 'true', temporaryErrorProbability: 1, temporaryErrorStatus: '0x58' });
      expect(faulty).toMatchObject({ refuseBinds: true, throttleAll: true, temporaryErrorProbability: 1, temporaryErrorStatus: 0x58 });
      expect(applyConfigPatch(faulty, { refuseBinds: false, throttleAll: '0', temporaryErrorStatus: 20 })).toMatchObject({ refuseBinds: false, throttleAll: false, temporaryErrorStatus: 20 });
    });

    it('refuses bad fault values', () => {
      const problems = (patch: Record<string, unknown>) => {
        try {
          applyConfigPatch(current, patch);
          return [];
        } catch (error) {
          return (error as SimulatorConfigError).problems;
        }
      };
      expect(problems({ refuseBinds: 'yes', throttleAll: null, temporaryErrorProbability: 1.5, temporaryErrorStatus: 0 })).toEqual([
        'throttleAll: must be true or false',
        'refuseBinds: must be true or false',
        'temporaryErrorProbability: must be a number from 0 to 1',
        'temporaryErrorStatus: must be a command_status from 1 to 0xFFFFFFFF (0 is success)',
      ]);
      expect(problems({ temporaryErrorStatus: 0x1_0000_0000 })).toHaveLength(1);
      expect(problems({ temporaryErrorStatus: '0x' })).toHaveLength(1);
      expect(problems({ httpHost: '0.0.0.0', messageIdStart: 1 })).toEqual(['httpHost: fixed once the simulator has started', 'messageIdStart: fixed once the simulator has started']);
    });

    it('refuses listener settings, unknown names and bad values', () => {
      expect(() => applyConfigPatch(current, { smppPort: 1 })).toThrow('smppPort: fixed once the simulator has started');
      expect(() => applyConfigPatch(current, { windw: 1 })).toThrow('windw: unknown setting');
      expect(() => applyConfigPatch(current, { window: '10x' })).toThrow('window: must be an integer');
      expect(() => applyConfigPatch(current, [])).toThrow('the body must be a JSON object');
    });
  });

  it('never shows the password', () => {
    expect(publicConfig(defaultSimulatorConfig()).password).toBe('[redacted]');
  });
});
