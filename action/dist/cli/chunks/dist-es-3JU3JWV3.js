import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{ENV_ACCOUNT_ID,ENV_CREDENTIAL_SCOPE,ENV_EXPIRATION,ENV_KEY,ENV_SECRET,ENV_SESSION,fromEnv}from"./chunk-4TBNWNHE.js";import"./chunk-D7G2ZAHW.js";import"./chunk-T3V5RABL.js";import"./chunk-MT4FBLC7.js";import"./chunk-A75SA247.js";export{ENV_ACCOUNT_ID,ENV_CREDENTIAL_SCOPE,ENV_EXPIRATION,ENV_KEY,ENV_SECRET,ENV_SESSION,fromEnv};
