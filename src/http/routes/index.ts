import { buildOpenApi } from '../openapi.js';
import { getErrorDocs } from './get-error-docs.js';
import { getHealth } from './get-health.js';
import { exportAudit, getAudit, getErrors, getUsage } from './monitoring.js';
import { getMetricsLive } from './get-metrics-live.js';
import { postExtract } from './post-extract.js';
import { postSearch } from './post-search.js';
import { postValidate } from './post-validate.js';
import { postSummarize } from './post-summarize.js';
import { postMcp } from './mcp.js';
import { deleteIndexDocuments, postIndexDocuments } from './index-documents.js';
import { getIndexJob } from './index-jobs.js';
import { deleteCrawl, getCrawl, postCrawl } from './crawls.js';
import { deleteCacheEntries, getCacheEntry, postCacheEntry } from './cache.js';
import { getLivez, getMetrics, getReadyz } from './probes.js';
import type { Route } from './route.js';
import { createKey, getKey, getKeyUsage, listKeys, revokeKey, rotateKey, whoami } from './auth-keys.js';
import { createServiceAccount, listServiceAccounts } from './service-accounts.js';
import {
  acceptInvitation, addMember, createInvitation, createTeam, deleteInvitation, deleteTeam, getMember, getTeam, listInvitations, listMembers, listTeams,
  removeMember, updateMember, updateTeam,
} from './teams.js';
import { configureSso, deleteSso, getSso, getSsoMetadata, ssoAssertion, ssoLogin } from './sso.js';
import { createSession, deleteSession, getSession } from './session.js';
import { createAlert, deleteAlert, getAlert, getAlertDeliveries, getAlertHistory, listAlerts, replaceAlert, rotateAlertSecret, testAlert } from './alerts.js';
import { createAccount, getAccount, getPlans, listAccounts, updateAccount } from './accounts.js';
import { postTavilyExtract, postTavilySearch } from './compat-tavily.js';
import { postExaContents, postExaSearch } from './compat-exa.js';
import { FIRECRAWL_ROUTES } from './compat-firecrawl.js';
import { createDashboard, deleteDashboard, exportDashboardGrafana, getDashboard, listDashboards, replaceDashboard } from './dashboards.js';

let openApiDocument: object | undefined;

const getOpenApi: Route = {
  operationId: 'openapi',
  method: 'GET',
  path: '/v1/openapi.json',
  summary: 'This OpenAPI 3.1 document, generated from the JSON Schemas in schemas/ (no authentication)',
  tag: 'Docs',
  async handler(ctx, _input, services) {
    openApiDocument ??= buildOpenApi(ROUTES, services.version);
    ctx.body = openApiDocument;
  },
};

/** Every endpoint of the service. Routing, authentication and the OpenAPI document all read this list. */
export const ROUTES: readonly Route[] = [
  postSearch, postExtract, postValidate, postSummarize,
  postIndexDocuments, deleteIndexDocuments, getIndexJob,
  postCrawl, getCrawl, deleteCrawl,
  getCacheEntry, postCacheEntry, deleteCacheEntries,
  getHealth, getMetricsLive, getUsage, getAudit, exportAudit, getErrors,
  createDashboard, listDashboards, getDashboard, replaceDashboard, deleteDashboard, exportDashboardGrafana,
  createAlert, listAlerts, getAlert, replaceAlert, deleteAlert, getAlertHistory, getAlertDeliveries, testAlert, rotateAlertSecret,
  whoami, createKey, listKeys, getKey, rotateKey, revokeKey, getKeyUsage,
  createServiceAccount, listServiceAccounts,
  createTeam, listTeams, getTeam, updateTeam, deleteTeam,
  listMembers, addMember, getMember, updateMember, removeMember,
  createInvitation, listInvitations, deleteInvitation, acceptInvitation,
  configureSso, getSso, deleteSso, getSsoMetadata, ssoLogin, ssoAssertion,
  createSession, getSession, deleteSession,
  createAccount, listAccounts, getAccount, updateAccount, getPlans,
  postMcp,
  getOpenApi, getErrorDocs, getLivez, getReadyz, getMetrics,
  postTavilySearch, postTavilyExtract,
  postExaSearch, postExaContents,
  ...FIRECRAWL_ROUTES,
];
