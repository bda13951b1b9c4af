import { createLogger } from '@seed/platform-logging';
import { startSimulator } from './simulator';
import { SimulatorConfigError, loadSimulatorConfig } from './simulator.config';

export { startSimulator, type RunningSimulator, type SimulatorOptions } from './simulator';
export { defaultSimulatorConfig, type SimulatorConfig } from './simulator.config';

async function main(): Promise<void> {
  const config = loadSimulatorConfig(process.env);
  const logger = createLogger('smsc-simulator', config.logLevel);
  const simulator = await startSimulator(config, { logger });
  logger.info({ smppPort: simulator.smppPort, httpPort: simulator.httpPort, smppHost: simulator.smppAddress, httpHost: simulator.httpAddress }, 'smsc simulator ready');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'smsc simulator stopping');
    simulator.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// Imported (by tests, or a launcher) it only exports; run as a script it starts.
if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof SimulatorConfigError ? error.message : error);
    process.exit(1);
  });
}
