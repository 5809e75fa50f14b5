// The table of verbs. Verbs Terraform has that Foresight does not implement yet are absent, so the
// dispatcher reports them as unknown rather than pretending.

import type { Command } from './io';
import { VERSION_TEXT } from './version';

export const commands: Record<string, Command> = {
  version: async (args, io) => {
    if (args.includes('-json')) {
      io.stdout(
        JSON.stringify({ terraform_version: '1.11.4', platform: 'linux_amd64', provider_selections: {}, terraform_outdated: false }, null, 2) + '\n',
      );
    } else io.stdout(VERSION_TEXT);
    return 0;
  },
};
