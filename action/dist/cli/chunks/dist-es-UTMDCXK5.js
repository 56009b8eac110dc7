import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{ENV_ACCOUNT_ID,ENV_CREDENTIAL_SCOPE,ENV_EXPIRATION,ENV_KEY,ENV_SECRET,ENV_SESSION,fromEnv}from"./chunk-XPIS5VAL.js";import"./chunk-CQ5GL7GD.js";import"./chunk-MPF364EL.js";import"./chunk-ZH3YPQ75.js";import"./chunk-A75SA247.js";export{ENV_ACCOUNT_ID,ENV_CREDENTIAL_SCOPE,ENV_EXPIRATION,ENV_KEY,ENV_SECRET,ENV_SESSION,fromEnv};
