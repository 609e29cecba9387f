import { expect } from 'chai';
import { detectChallenge } from '../src/fetch/challenge.js';

// Hand-written interstitials, reduced to the parts that identify them.
const CLOUDFLARE_MANAGED = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots" content="noindex,nofollow">
<style>*{box-sizing:border-box;margin:0;padding:0}</style></head><body><div class="main-wrapper" role="main">
<div class="main-content"><noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript></div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: 'example.com',cType: 'managed'};var a=document.createElement('script');
a.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f';document.getElementsByTagName('head')[0].appendChild(a);}());</script></body></html>`;

const CLOUDFLARE_BLOCK = `<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head>
<body><div id="cf-wrapper"><h1 data-translate="block_headline">Sorry, you have been blocked</h1>
<h2>You are unable to access example.com</h2></div></body></html>`;

const CLOUDFLARE_NOSCRIPT_ONLY = `<html><head><title>example.com</title></head><body>
<p>Please enable JavaScript and cookies to continue</p></body></html>`;

const DDOS_GUARD = `<!DOCTYPE html><html><head><title>DDoS-Guard</title></head><body>
<div>Checking your browser before accessing example.com</div>
<script src="/.well-known/ddos-guard/js-challenge/index.js"></script></body></html>`;

const SUCURI = `<html><head><title>You are being redirected...</title></head><body>
<script>var s={},u,c,U,r,i,l=0,a,e=eval,w=String.fromCharCode,sucuri_cloudproxy_js='',S='Yz0iZSIgKyAiMyIgKyAi';</script></body></html>`;

const SUCURI_DENIED = `<!DOCTYPE html><html><head><title>Sucuri WebSite Firewall - Access Denied</title></head>
<body><h2>Access Denied - Sucuri Website Firewall</h2><p>If you are the site owner, contact cloudproxy@sucuri.net</p></body></html>`;

const PERIMETERX = `<!DOCTYPE html><html lang="en"><head><title>Access to this page has been denied</title></head><body>
<section class="container"><h1>Before we continue...</h1><p>Press &amp; Hold to confirm you are a human (and not a bot).</p>
<div id="px-captcha"></div></section><script src="https://captcha.px-cdn.net/PXabc123/captcha.js?a=c&u=1"></script></body></html>`;

const DATADOME = `<html><head><title>example.com</title><style>#cmsg{animation: A 1.5s;}</style></head><body style="margin:0">
<p id="cmsg">Please enable JS and disable any ad blocker</p>
<script>var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'2211F522B61E269B869FA6EAFFB5E1','t':'fe','host':'geo.captcha-delivery.com'}</script>
<script src="https://ct.captcha-delivery.com/c.js"></script></body></html>`;

const AKAMAI_DENIED = `<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>
You don't have permission to access "http&#58;&#47;&#47;www&#46;example&#46;com&#47;" on this server.<P>
Reference&#32;&#35;18&#46;6b2e1402&#46;1700000000&#46;3a1b2c
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;6b2e1402
</BODY>
</HTML>`;

const AKAMAI_CHALLENGE = `<!DOCTYPE html><html><head><title>Challenge Validation</title></head><body>
<div id="sec-if-cpt-container" class="cpt-container"><script src="/_sec/cp_challenge/sec-cpt-if-4-1.js"></script></div></body></html>`;

const IMPERVA = `<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW"></head><body style="margin:0px;height:100%">
<iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=23&xinfo=5-1234&incident_id=1000-2000&edet=12" frameborder=0 width="100%" height="100%">
Request unsuccessful. Incapsula incident ID: 1000000000000-2000000000000</iframe></body></html>`;

const AWS_WAF = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title></title>
<script>window.awsWafCookieDomainList = [];window.gokuProps = {"key":"AQIDAHjcYu","iv":"D549Fg","context":"abc"};</script>
<script src="https://abc.token.awswaf.com/abc/challenge.js"></script></head><body><div id="challenge-container"></div></body></html>`;

const HCAPTCHA_ONLY = `<!DOCTYPE html><html><head><title>Security check</title>
<script src="https://js.hcaptcha.com/1/api.js" async defer></script></head><body>
<form method="post"><p>One more step: please complete the security check to continue.</p>
<div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div><button>Continue</button></form></body></html>`;

const RECAPTCHA_ONLY = `<html><head><title>Verification</title><script src="https://www.google.com/recaptcha/api.js"></script></head>
<body><form action="/verify"><div class="g-recaptcha" data-sitekey="6Lc_aaaaAAAAAAAA"></div><input type="submit"></form></body></html>`;

const GOOGLE_SORRY = `<html><head><title>https://www.example.com/search</title></head><body>
<div>Our systems have detected unusual traffic from your computer network. This page checks to see if it's really you sending the requests, and not a robot.</div>
<div id="recaptcha" class="g-recaptcha"></div></body></html>`;

// Ordinary pages that mention or embed the same things and must pass.
const LOREM = 'The committee met on Tuesday to discuss the budget for the coming year, and the debate ran long into the evening. '.repeat(12);

const ARTICLE_ABOUT_CAPTCHAS = `<!DOCTYPE html><html><head><title>Why captchas are getting harder</title></head><body><article>
<h1>Why captchas are getting harder</h1><p>${LOREM}</p><p>Services such as Cloudflare show a "Just a moment..." page, and the text
"Please enable JavaScript and cookies to continue" has become familiar; DDoS-Guard and Sucuri WebSite Firewall do similar things.
A captcha asks you to verify you are human.</p><p>${LOREM}</p></article></body></html>`;

const CLOUDFLARE_PROTECTED_NORMAL = `<!DOCTYPE html><html><head><title>Recipes: lemon tart</title></head><body><main><h1>Lemon tart</h1><p>${LOREM}</p></main>
<script>(function(){function c(){var b=a.contentDocument||a.contentWindow.document;if(b){var d=b.createElement('script');
d.innerHTML="window.__CF$cv$params={r:'8a1b2c3d4e5f',t:'MTcwMDAwMDAwMA=='};var a=document.createElement('script');a.nonce='';
a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';document.getElementsByTagName('head')[0].appendChild(a);";
b.getElementsByTagName('head')[0].appendChild(d)}}}})();</script></body></html>`;

const DATADOME_PROTECTED_NORMAL = `<!DOCTYPE html><html><head><title>Shop</title>
<script>!function(a,b,c,d,e,f){a.ddjskey=e;a.ddoptions=f||null;var m=b.createElement(c),n=b.getElementsByTagName(c)[0];
m.async=1,m.src=d,n.parentNode.insertBefore(m,n)}(window,document,"script","https://js.datadome.co/tags.js","KEY",{});</script>
</head><body><h1>New arrivals</h1><p>${LOREM}</p></body></html>`;

const ARTICLE_WITH_COMMENT_FORM = `<!DOCTYPE html><html><head><title>Field notes</title>
<script src="https://www.google.com/recaptcha/api.js" async defer></script></head><body><article><h1>Field notes</h1>
<p>${LOREM}</p><p>${LOREM}</p></article><form id="comments"><textarea name="c"></textarea><div class="g-recaptcha" data-sitekey="x"></div></form></body></html>`;

const SPA_SHELL = `<!doctype html><html><head><title>App</title></head><body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div><script src="/static/js/main.js"></script></body></html>`;

const PLAIN_FORBIDDEN = `<html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden</h1></center><hr><center>nginx</center></body></html>`;

describe('detectChallenge', () => {
  const cases: Array<[string, number, string, string, Record<string, string>?]> = [
    ['Cloudflare managed challenge', 403, CLOUDFLARE_MANAGED, 'blocked: Cloudflare challenge'],
    ['Cloudflare challenge served with 503', 503, CLOUDFLARE_MANAGED, 'blocked: Cloudflare challenge'],
    ['Cloudflare block page', 403, CLOUDFLARE_BLOCK, 'blocked: Cloudflare challenge'],
    ['Cloudflare cf-mitigated header with an empty body', 403, '', 'blocked: Cloudflare challenge', { 'cf-mitigated': 'challenge' }],
    ['Cloudflare cf-mitigated header on a 200', 200, '<html></html>', 'blocked: Cloudflare challenge', { 'cf-mitigated': 'Challenge' }],
    ['"Please enable JavaScript and cookies" on a 403', 403, CLOUDFLARE_NOSCRIPT_ONLY, 'blocked: Cloudflare challenge'],
    ['"Please enable JavaScript and cookies" alone on a 200', 200, CLOUDFLARE_NOSCRIPT_ONLY, 'blocked: Cloudflare challenge'],
    ['DDoS-Guard', 403, DDOS_GUARD, 'blocked: DDoS-Guard challenge'],
    ['Sucuri JavaScript challenge on a 200', 200, SUCURI, 'blocked: Sucuri firewall'],
    ['Sucuri access denied', 403, SUCURI_DENIED, 'blocked: Sucuri firewall'],
    ['PerimeterX press and hold', 403, PERIMETERX, 'blocked: PerimeterX captcha'],
    ['DataDome captcha', 403, DATADOME, 'blocked: DataDome captcha'],
    ['Akamai access denied', 403, AKAMAI_DENIED, 'blocked: Akamai bot protection'],
    ['Akamai bot manager challenge', 200, AKAMAI_CHALLENGE, 'blocked: Akamai bot protection'],
    ['Imperva', 200, IMPERVA, 'blocked: Imperva bot protection'],
    ['AWS WAF challenge on a 202', 202, AWS_WAF, 'blocked: AWS WAF challenge'],
    ['hCaptcha with little else on a 200', 200, HCAPTCHA_ONLY, 'blocked: captcha'],
    ['reCAPTCHA with little else on a 200', 200, RECAPTCHA_ONLY, 'blocked: captcha'],
    ['Google unusual-traffic page on a 429', 429, GOOGLE_SORRY, 'blocked: browser check'],
  ];
  for (const [name, status, body, reason, headers] of cases) {
    it(`recognises ${name}`, () => {
      expect(detectChallenge(status, headers ?? {}, body)).to.equal(reason);
    });
  }

  const normal: Array<[string, number, string]> = [
    ['an article about captchas and challenge pages', 200, ARTICLE_ABOUT_CAPTCHAS],
    ['a normal page carrying Cloudflare bot detection', 200, CLOUDFLARE_PROTECTED_NORMAL],
    ['a normal page carrying the DataDome tag', 200, DATADOME_PROTECTED_NORMAL],
    ['a long article with a reCAPTCHA comment form', 200, ARTICLE_WITH_COMMENT_FORM],
    ['a single-page app shell', 200, SPA_SHELL],
    ['a plain 403', 403, PLAIN_FORBIDDEN],
    ['a 404 that embeds a captcha', 404, RECAPTCHA_ONLY],
    ['an empty 503', 503, ''],
  ];
  for (const [name, status, body] of normal) {
    it(`passes ${name}`, () => {
      expect(detectChallenge(status, {}, body)).to.equal(undefined);
    });
  }

  it('does not judge a page by a captcha in its head when the rest is out of view', () => {
    // A head larger than the window: the page's text is not in sight, so "little else" cannot be told.
    const truncated = `<html><head><script src="https://js.hcaptcha.com/1/api.js"></script><script>${'x=1;'.repeat(5000)}</script>`;
    expect(detectChallenge(200, {}, truncated)).to.equal(undefined);
  });
});
