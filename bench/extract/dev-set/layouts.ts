import { furniture } from './furniture.js';
import { escapeHtml as esc, inline, renderMarkup, type ParagraphStyle } from './markup.js';
import type { PageSource, Section } from './source.js';

/**
 * The layouts that wrap a development page's content in the furniture of a kind of site, the
 * way such sites mark it up (class names, nesting, menus, teasers, comment threads). Each
 * returns the page and the snippets of its furniture that must stay out of the main content.
 */
export interface Composed {
  html: string;
  not: string[];
}

type Layout = (page: PageSource) => Composed;

const RTL = new Set(['ar', 'he', 'fa', 'ur']);

function all(page: PageSource, name: string): Section[] {
  return page.sections.filter((section) => section.name === name);
}

function one(page: PageSource, name: string): Section | undefined {
  return page.sections.find((section) => section.name === name);
}

function md(section: Section | undefined, style: ParagraphStyle = 'p'): string {
  return section ? renderMarkup(section.body, style) : '';
}

function lines(section: Section | undefined): string[] {
  return section ? section.body.split('\n').map((line) => line.trim()).filter(Boolean) : [];
}

export function slug(text: string): string {
  return text.toLowerCase().normalize('NFKD').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '').slice(0, 60) || 'page';
}

function head(page: PageSource, extra = ''): string {
  return `<!DOCTYPE html>
<html lang="${page.lang}"${RTL.has(page.lang) ? ' dir="rtl"' : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(page.title)} | ${esc(page.site)}</title>
<meta property="og:title" content="${esc(page.title)}">
<meta property="og:site_name" content="${esc(page.site)}">
<link rel="stylesheet" href="/assets/site.css">
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());</script>
${extra}</head>
`;
}

const SCRIPTS = `<script src="/assets/app.bundle.js" defer></script>
<script>document.querySelectorAll('.lazy').forEach(function(i){i.src=i.dataset.src})</script>`;

function navList(items: readonly string[], className = 'menu'): string {
  return `<ul class="${className}">${items.map((item) => `<li><a href="/${slug(item)}/">${esc(item)}</a></li>`).join('')}</ul>`;
}

function teaserLinks(titles: readonly string[], prefix = '/'): string {
  return titles.map((title) => `<li><a href="${prefix}${slug(title)}">${esc(title)}</a></li>`).join('\n');
}

/** phpBB-style board: posts in boxes with a profile column, signatures, "who is online", similar topics. */
const forumTable: Layout = (page) => {
  const category = one(page, 'category')?.body ?? 'General discussion';
  const posts = all(page, 'post');
  const related = lines(one(page, 'related'));
  const postHtml = posts.map((post, i) => {
    const [user = 'guest', date = '', signature = ''] = post.args;
    return `<div id="p${1000 + i}" class="post has-profile bg${(i % 2) + 1}">
<div class="inner">
<dl class="postprofile" id="profile${1000 + i}">
<dt class="has-profile-rank"><a href="/memberlist.php?mode=viewprofile&amp;u=${i + 7}" class="username">${esc(user)}</a></dt>
<dd class="profile-rank">${i === 0 ? 'Newbie' : 'Regular member'}</dd>
<dd class="profile-posts"><strong>Posts:</strong> <a href="/search.php?author_id=${i + 7}">${(i * 397 + 41) % 2000}</a></dd>
<dd class="profile-joined"><strong>Joined:</strong> ${['Mon Mar 04, 2019', 'Sat Nov 21, 2015', 'Tue Jun 12, 2012', 'Fri Jan 08, 2021'][i % 4]}</dd>
</dl>
<div class="postbody">
<div id="post_content${1000 + i}">
<h3${i === 0 ? ' class="first"' : ''}><a href="#p${1000 + i}">${i === 0 ? '' : 'Re: '}${esc(page.title)}</a></h3>
<p class="author"><a class="unread" href="#p${1000 + i}" title="Post"><i class="icon fa-file"></i></a> by <strong><a href="/memberlist.php?u=${i + 7}" class="username">${esc(user)}</a></strong> » ${esc(date)}</p>
<div class="content">${md(post, 'br')}</div>
${signature ? `<div id="sig${1000 + i}" class="signature">${esc(signature)}</div>` : ''}
</div>
</div>
<div class="back2top"><a href="#top" class="top" title="Top">Top</a></div>
</div>
</div>
<hr class="divider">`;
  }).join('\n');
  const html = `${head(page)}<body id="phpbb" class="nojs notouch section-viewtopic ltr">
<div id="wrap" class="wrap">
<a id="top" class="top-anchor" accesskey="t"></a>
<div id="page-header">
<div class="headerbar" role="banner">
<div class="inner"><div id="site-description" class="site-description"><a id="logo" class="logo" href="/index.php" title="Board index">${esc(page.site)}</a>
<p>Friendly help and discussion since 2004</p></div>
<div id="search-box" class="search-box search-header" role="search"><form action="/search.php" method="get"><input name="keywords" type="search"><button class="button">Search</button></form></div></div>
</div>
<div class="navbar" role="navigation">
<ul id="nav-main" class="nav-main linklist" role="menubar">
<li><a href="/faq.php" rel="help">FAQ</a></li><li><a href="/memberlist.php">Members list</a></li><li><a href="/ucp.php?mode=register">Register</a></li><li><a href="/ucp.php?mode=login">Login</a></li>
</ul>
<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar">
<li class="breadcrumbs"><span class="crumb"><a href="/index.php">Board index</a></span> <span class="crumb"><a href="/viewforum.php?f=3">${esc(category)}</a></span></li>
</ul>
</div>
</div>
<div id="page-body" class="page-body" role="main">
<h2 class="topic-title"><a href="/viewtopic.php?t=4412">${esc(page.title)}</a></h2>
<div class="action-bar bar-top"><a href="/posting.php?mode=reply&amp;t=4412" class="button">Post Reply</a>
<div class="pagination">${posts.length} posts • Page <strong>1</strong> of <strong>1</strong></div></div>
${postHtml}
<div class="action-bar bar-bottom"><a href="/posting.php?mode=reply&amp;t=4412" class="button">Post Reply</a></div>
<div class="action-bar actions-jump"><p class="jumpbox-return"><a href="/viewforum.php?f=3" class="left-box arrow-left" accesskey="r">Return to “${esc(category)}”</a></p></div>
${related.length ? `<div class="forabg similar-topics"><div class="inner"><ul class="topiclist"><li class="header"><dl><dt>Similar topics</dt><dd class="posts">Replies</dd><dd class="views">Views</dd></dl></li></ul>
<ul class="topiclist topics">${related.map((title, i) => `<li class="row bg${(i % 2) + 1}"><dl class="row-item topic_read"><dt><div class="list-inner"><a href="/viewtopic.php?t=${3000 + i}" class="topictitle">${esc(title)}</a><br>by <a href="/memberlist.php?u=${90 + i}" class="username">member${90 + i}</a> » in ${esc(category)}</div></dt><dd class="posts">${3 + i * 2}</dd><dd class="views">${412 + i * 97}</dd></dl></li>`).join('\n')}</ul></div></div>` : ''}
<div class="stat-block online-list"><h3>Who is online</h3><p>Users browsing this forum: No registered users and 4 guests</p></div>
</div>
<div id="page-footer" class="page-footer" role="contentinfo">
<div class="navbar" role="navigation"><ul id="nav-footer" class="nav-footer linklist" role="menubar"><li><a href="/index.php">Board index</a></li><li><a href="/ucp.php?mode=delete_cookies">Delete cookies</a></li><li>All times are <span title="UTC">UTC</span></li></ul></div>
<div class="copyright">Powered by <a href="https://www.phpbb.com/">phpBB</a>® Forum Software © phpBB Limited<br>Privacy | Terms</div>
</div>
</div>
${SCRIPTS}
</body></html>`;
  return { html, not: ['Users browsing this forum', 'Powered by phpBB', 'Friendly help and discussion since 2004', ...related.slice(0, 2)] };
};

/** Discourse-style topic: posts as articles with avatars and like counts, suggested topics below. */
const forumDiscourse: Layout = (page) => {
  const category = one(page, 'category')?.body ?? 'General';
  const posts = all(page, 'post');
  const related = lines(one(page, 'related'));
  const topicSlug = slug(page.title);
  const postHtml = posts.map((post, i) => {
    const [user = 'someone', date = '', likes = ''] = post.args;
    return `<div class="topic-post clearfix${i === 0 ? ' topic-owner' : ''} regular" id="post_${i + 1}">
<article id="post_${i + 1}" aria-label="post #${i + 1} by @${esc(user)}" role="region" data-post-id="${52310 + i}" data-topic-id="9921" data-user-id="${311 + i}" class="boxed onscreen-post">
<div class="row">
<div class="topic-avatar"><div class="post-avatar"><a class="trigger-user-card main-avatar" href="/u/${esc(user)}" aria-hidden="true"><img alt="" width="48" height="48" src="/user_avatar/${esc(user)}/48.png" class="avatar"></a></div></div>
<div class="topic-body clearfix">
<div role="heading" aria-level="2" class="topic-meta-data"><div class="names trigger-user-card"><span class="first username"><a href="/u/${esc(user)}" data-user-card="${esc(user)}">${esc(user)}</a></span></div>
<div class="post-infos"><div class="post-info post-date"><a class="post-date" href="/t/${topicSlug}/9921/${i + 1}"><span title="${esc(date)}" class="relative-date">${esc(date)}</span></a></div></div></div>
<div class="regular contents"><div class="cooked">
${md(post)}
</div>
<section class="post-menu-area clearfix"><nav class="post-controls"><div class="actions">${likes ? `<div class="double-button"><span class="like-count">${esc(likes)}</span></div>` : ''}<a class="post-action-menu__reply">${i === 0 ? 'Reply' : ''}</a></div></nav></section>
</div>
</div>
</div>
</article>
</div>`;
  }).join('\n');
  const html = `${head(page)}<body class="crawler">
<header class="d-header"><div class="wrap"><div class="contents"><div class="header-title"><a href="/"><img src="/logo.png" alt="${esc(page.site)}" id="site-logo"></a></div>
<div class="panel"><a href="/login" class="btn login-button">Log In</a> <a href="/signup" class="btn sign-up-button">Sign Up</a></div></div></div></header>
<div id="main-outlet" class="wrap" role="main">
<div id="topic-title"><div class="title-wrapper"><h1 data-topic-id="9921"><a class="fancy-title" href="/t/${topicSlug}/9921">${esc(page.title)}</a></h1>
<div class="topic-category"><span class="badge-category__wrapper"><span class="badge-category__name">${esc(category)}</span></span></div></div></div>
<div class="post-stream">
${postHtml}
</div>
<div id="topic-footer-buttons"><div class="topic-footer-main-buttons"><a class="btn create">Reply</a></div><p class="reason">You will see a count of new replies because you read this topic.</p></div>
${related.length ? `<div class="more-topics__container"><div class="suggested-topics"><h3 class="suggested-topics-title">Suggested Topics</h3>
<table class="topic-list"><thead><tr><th>Topic</th><th>Replies</th><th>Activity</th></tr></thead><tbody>
${related.map((title, i) => `<tr class="topic-list-item"><td class="main-link"><a href="/t/${slug(title)}/${8000 + i}" class="title raw-link raw-topic-link">${esc(title)}</a><div class="link-bottom-line"><span class="badge-category__name">${esc(category)}</span></div></td><td class="num posts">${2 + i * 3}</td><td class="num age activity">${['Feb 12', 'Jan 3', 'Mar 29', 'Dec 2023'][i % 4]}</td></tr>`).join('\n')}
</tbody></table></div>
<h3 class="more-topics__browse-more">Want to read more? Browse other topics in <a href="/c/${slug(category)}/5">${esc(category)}</a> or <a href="/latest">view latest topics</a>.</h3></div>` : ''}
</div>
<footer class="footer-links"><nav class="crawler-nav"><ul><li><a href="/">Home</a></li><li><a href="/categories">Categories</a></li><li><a href="/guidelines">Guidelines</a></li><li><a href="/tos">Terms of Service</a></li><li><a href="/privacy">Privacy Policy</a></li></ul></nav>
<p class="powered-by-link">Powered by <a href="https://www.discourse.org">Discourse</a>, best viewed with JavaScript enabled</p></footer>
${SCRIPTS}
</body></html>`;
  return { html, not: ['Want to read more? Browse other topics', 'best viewed with JavaScript enabled', 'You will see a count of new replies', ...related.slice(0, 2)] };
};

/** Stack Exchange-style question page: question, answers with votes, short comments, linked and hot questions. */
const qa: Layout = (page) => {
  const question = one(page, 'question');
  const answers = all(page, 'answer');
  const related = lines(one(page, 'related'));
  const tags = (one(page, 'tags')?.body ?? '').split(',').map((tag) => tag.trim()).filter(Boolean);
  const hot = lines(one(page, 'hot'));
  const remarks = (after: Section): string => {
    const list: Section[] = [];
    const start = page.sections.indexOf(after);
    for (let i = start + 1; i < page.sections.length && page.sections[i]!.name === 'remark'; i++) list.push(page.sections[i]!);
    return `<div class="post-layout--right js-post-comments-component"><div class="comments js-comments-container" data-post-id="${start}"><ul class="comments-list js-comments-list">
${list.map((remark, i) => `<li id="comment-${13500000 + start * 10 + i}" class="comment js-comment" data-comment-score="${i}"><div class="comment-score js-comment-score">${i + 1}</div><div class="comment-text js-comment-text-and-form"><div class="comment-body js-comment-edit-hide"><span class="comment-copy">${inline(remark.body)}</span> – <a href="/users/${400 + i}" class="comment-user">${esc(remark.args[0] ?? 'user')}</a> <span class="comment-date"><span class="relativetime-clean">${esc(remark.args[1] ?? 'Mar 4, 2021 at 9:12')}</span></span></div></div></li>`).join('\n')}
</ul></div><div class="mt8"><a class="js-add-link comments-link" role="button">Add a comment</a></div></div>`;
  };
  const signature = (verb: string, section: Section): string => `<div class="post-signature${verb === 'asked' ? ' owner' : ''} flex--item"><div class="user-info"><div class="user-action-time">${verb} <span class="relativetime">${esc(section.args[1] ?? '')}</span></div><div class="user-gravatar32"><img src="/avatar/${esc(section.args[0] ?? 'u')}.png" alt="" width="32"></div><div class="user-details"><a href="/users/${section.args[0]?.length ?? 1}/${esc(section.args[0] ?? 'u')}">${esc(section.args[0] ?? 'user')}</a><div class="-flair"><span class="reputation-score" title="reputation score">${(section.args[0]?.length ?? 1) * 1373}</span></div></div></div></div>`;
  const html = `${head(page)}<body class="question-page unified-theme">
<header class="s-topbar ps-fixed t0 l0 js-top-bar"><div class="s-topbar--container"><a href="/" class="s-topbar--logo"><span class="-img">${esc(page.site)}</span></a>
<ol class="s-navigation" role="presentation"><li><a href="/about" class="s-navigation--item">About</a></li><li><a href="/teams" class="s-navigation--item">For Teams</a></li></ol>
<form id="search" role="search" action="/search" class="s-topbar--searchbar"><input name="q" type="text" placeholder="Search…"></form>
<ol class="s-topbar--content"><li><a href="/users/login" class="s-topbar--item">Log in</a></li><li><a href="/users/signup" class="s-btn">Sign up</a></li></ol></div></header>
<div class="container">
<div id="left-sidebar" class="left-sidebar js-pinned-left-sidebar"><div class="left-sidebar--sticky-container"><nav role="navigation"><ol class="nav-links">
<li><a href="/" class="nav-links--link">Home</a></li><li><a href="/questions" class="nav-links--link">Questions</a></li><li><a href="/tags" class="nav-links--link">Tags</a></li><li><a href="/users" class="nav-links--link">Users</a></li><li><a href="/unanswered" class="nav-links--link">Unanswered</a></li>
</ol></nav></div></div>
<div id="content" class="snippet-hidden">
<div itemprop="mainEntity" itemscope itemtype="https://schema.org/QAPage">
<div id="question-header" class="d-flex sm:fd-column"><h1 itemprop="name" class="fs-headline1 ow-break-word mb8 flex--item fl1"><a href="/questions/6674021/${slug(page.title)}" class="question-hyperlink">${esc(page.title)}</a></h1>
<div class="ml12 aside-cta flex--item"><a href="/questions/ask" class="ws-nowrap s-btn s-btn__filled">Ask Question</a></div></div>
<div class="d-flex fw-wrap pb8 mb16 bb bc-black-200"><div class="flex--item ws-nowrap mr16 mb8"><span class="fc-black-400 mr2">Asked</span> <time itemprop="dateCreated">${esc(question?.args[1] ?? '')}</time></div><div class="flex--item ws-nowrap mb8"><span class="fc-black-400 mr2">Viewed</span> 48k times</div></div>
<div id="mainbar" role="main" aria-label="question and answers">
<div class="question js-question" data-questionid="6674021" id="question">
<div class="post-layout"><div class="votecell post-layout--left"><div class="js-voting-container"><div class="js-vote-count" itemprop="upvoteCount">${esc(question?.args[2] ?? '12')}</div></div></div>
<div class="postcell post-layout--right"><div class="s-prose js-post-body" itemprop="text">
${md(question)}
</div>
<div class="mt24 mb12"><div class="post-taglist d-flex gs4 gsy fd-column"><div class="d-flex ps-relative fw-wrap"><ul class="ml0 list-ls-none js-post-tag-list-wrapper d-inline">${tags.map((tag) => `<li class="d-inline mr4 js-post-tag-list-item"><a href="/questions/tagged/${esc(tag)}" class="post-tag" rel="tag">${esc(tag)}</a></li>`).join('')}</ul></div></div></div>
<div class="mb0"><div class="mt16 d-flex gs8 gsy fw-wrap jc-end ai-start pt4 mb16"><div class="flex--item mr16 fl1 w96"><div class="js-post-menu pt2"><a href="/q/6674021" class="js-share-link">Share</a> <a href="/posts/6674021/edit">Improve this question</a> <button class="s-btn s-btn__link js-follow-post">Follow</button></div></div>${question ? signature('asked', question) : ''}</div></div>
</div>
${question ? remarks(question) : ''}
</div></div>
<div id="answers">
<a name="tab-top"></a>
<div id="answers-header"><div class="answers-subheader d-flex ai-center mb8"><div class="flex--item fl1"><h2 class="mb0" data-answercount="${answers.length}">${answers.length} Answers</h2></div><div class="flex--item"><label for="answer-sort-dropdown-select-menu">Sorted by:</label> <select id="answer-sort-dropdown-select-menu"><option>Highest score (default)</option></select></div></div></div>
${answers.map((answer, i) => `<a name="${7000000 + i}"></a>
<div id="answer-${7000000 + i}" class="answer js-answer${answer.args[3] === 'accepted' ? ' accepted-answer js-accepted-answer' : ''}" data-answerid="${7000000 + i}" itemprop="${answer.args[3] === 'accepted' ? 'acceptedAnswer' : 'suggestedAnswer'}" itemscope itemtype="https://schema.org/Answer">
<div class="post-layout"><div class="votecell post-layout--left"><div class="js-voting-container"><div class="js-vote-count" itemprop="upvoteCount">${esc(answer.args[2] ?? '0')}</div>${answer.args[3] === 'accepted' ? '<div class="js-accepted-answer-indicator" title="Loading when this answer was accepted…"></div>' : ''}</div></div>
<div class="answercell post-layout--right"><div class="s-prose js-post-body" itemprop="text">
${md(answer)}
</div>
<div class="mt24"><div class="d-flex fw-wrap ai-start jc-end gs8 gsy"><div class="flex--item mr16"><div class="js-post-menu"><a href="/a/${7000000 + i}" class="js-share-link">Share</a> <a href="/posts/${7000000 + i}/edit">Improve this answer</a></div></div>${signature('answered', answer)}</div></div>
</div>
${remarks(answer)}
</div></div>`).join('\n')}
<h2 class="bottom-notice fs-body3 mt16" data-loc="1">Not the answer you're looking for? Browse other questions tagged ${tags.map((tag) => `<a href="/questions/tagged/${esc(tag)}" class="post-tag">${esc(tag)}</a>`).join(' ')} or <a href="/questions/ask">ask your own question</a>.</h2>
</div>
</div>
<div id="sidebar" class="show-votes" role="complementary" aria-label="sidebar">
<div class="s-sidebarwidget s-sidebarwidget__yellow"><ul class="d-block p0 m0"><div class="s-sidebarwidget--header">The Overflow Blog</div><li class="s-sidebarwidget--item"><a href="/blog/1" class="js-gps-track">How engineering teams measure developer productivity without surveillance</a></li><li class="s-sidebarwidget--item"><a href="/blog/2">Featured on Meta: moderator election results</a></li></ul></div>
${related.length ? `<div class="module sidebar-related"><h4 id="h-related">Related</h4><div class="related js-gps-related-questions">${related.map((title, i) => `<div class="spacer"><a href="/q/${100 + i}"><div class="answer-votes answered-accepted">${14 + i * 7}</div></a><a href="/questions/${100 + i}/${slug(title)}" class="question-hyperlink">${esc(title)}</a></div>`).join('\n')}</div></div>` : ''}
${hot.length ? `<div id="hot-network-questions" class="module tex2jax_ignore"><h4><a href="https://stackexchange.com/questions?tab=hot" class="js-gps-track s-link s-link__inherit">Hot Network Questions</a></h4><ul>${teaserLinks(hot, 'https://other.example/questions/')}</ul></div>` : ''}
</div>
</div>
</div>
</div>
<footer id="footer" class="site-footer js-footer" role="contentinfo"><div class="site-footer--container"><nav class="site-footer--nav"><ul><li><a href="/help">Help</a></li><li><a href="/legal/privacy-policy">Privacy</a></li><li><a href="/legal/terms-of-service">Terms of Service</a></li><li><a href="/legal/cookie-policy">Cookie Policy</a></li></ul></nav>
<p class="site-footer--copyright fs-fine md:mt24">Site design / logo © 2026 ${esc(page.site)} Inc; user contributions licensed under <a href="https://stackoverflow.com/help/licensing">CC BY-SA</a>. rev 2026.3.4.12345</p></div></footer>
${SCRIPTS}
</body></html>`;
  return { html, not: ["Not the answer you're looking for?", 'The Overflow Blog', 'user contributions licensed under', 'Improve this question', ...related.slice(0, 1), ...hot.slice(0, 1)] };
};

/** A WordPress blog post with a long comment thread, an author box, widgets in a sidebar. */
const blogComments: Layout = (page) => {
  const f = furniture(page.lang);
  const comments = all(page, 'comment');
  const related = lines(one(page, 'related'));
  const about = one(page, 'about');
  const author = one(page, 'author');
  const [authorName = 'admin', date = ''] = author?.args ?? [];
  const html = `${head(page)}<body class="post-template-default single single-post postid-812 single-format-standard wp-embed-responsive has-sidebar">
<div id="cookie-notice" role="dialog" class="cookie-notice-hidden cookie-revoke-hidden cn-position-bottom" aria-label="Cookie Notice"><div class="cookie-notice-container"><span id="cn-notice-text" class="cn-text-container">${esc(f.cookie)}</span><span id="cn-notice-buttons" class="cn-buttons-container"><a href="#" id="cn-accept-cookie" class="cn-set-cookie cn-button">${esc(f.accept)}</a></span></div></div>
<div id="page" class="site">
<a class="skip-link screen-reader-text" href="#content">Skip to content</a>
<header id="masthead" class="site-header">
<div class="site-branding"><p class="site-title"><a href="/" rel="home">${esc(page.site)}</a></p><p class="site-description">${esc(one(page, 'tagline')?.body ?? 'Notes from a small corner of the web')}</p></div>
<nav id="site-navigation" class="main-navigation" aria-label="Primary menu">${navList(f.nav.slice(0, 5), 'menu nav-menu')}</nav>
</header>
<div id="content" class="site-content">
<div id="primary" class="content-area"><main id="main" class="site-main">
<article id="post-812" class="post-812 post type-post status-publish format-standard hentry category-${slug(one(page, 'category')?.body ?? 'notes')}">
<header class="entry-header"><h1 class="entry-title">${esc(page.title)}</h1>
<div class="entry-meta"><span class="posted-on"><a href="/?p=812" rel="bookmark"><time class="entry-date published" datetime="2024-05-02T08:00:00+00:00">${esc(date)}</time></a></span><span class="byline"> <span class="author vcard"><a class="url fn n" href="/author/${slug(authorName)}/">${esc(authorName)}</a></span></span></div>
</header>
<div class="entry-content">
${md(one(page, 'main'))}
</div>
<footer class="entry-footer"><span class="cat-links"><a href="/category/${slug(one(page, 'category')?.body ?? 'notes')}/" rel="category tag">${esc(one(page, 'category')?.body ?? 'Notes')}</a></span><span class="tags-links">${esc(f.tagged)} <a href="/tag/a/" rel="tag">${esc(one(page, 'category')?.body ?? 'notes')}</a></span></footer>
</article>
${about ? `<div class="author-info"><div class="author-avatar"><img src="/avatar/${slug(authorName)}.jpg" alt="" width="60"></div><div class="author-description"><h2 class="author-title">${esc(authorName)}</h2><p class="author-bio">${inline(about.body)}</p></div></div>` : ''}
<nav class="navigation post-navigation" aria-label="Posts"><h2 class="screen-reader-text">Post navigation</h2><div class="nav-links">${related.slice(0, 2).map((title, i) => `<div class="nav-${i === 0 ? 'previous' : 'next'}"><a href="/${slug(title)}/" rel="${i === 0 ? 'prev' : 'next'}"><span class="meta-nav">${i === 0 ? '←' : '→'}</span> <span class="post-title">${esc(title)}</span></a></div>`).join('')}</div></nav>
${comments.length ? `<div id="comments" class="comments-area">
<h2 class="comments-title">${comments.length} × “${esc(page.title)}”</h2>
<ol class="comment-list">
${comments.map((comment, i) => `<li id="comment-${2200 + i}" class="comment ${i % 2 ? 'odd alt' : 'even'} thread-${i % 2 ? 'odd' : 'even'} depth-1"><article id="div-comment-${2200 + i}" class="comment-body">
<footer class="comment-meta"><div class="comment-author vcard"><img alt="" src="/avatar/c${i}.png" class="avatar avatar-32" height="32" width="32"><b class="fn">${esc(comment.args[0] ?? 'Anonymous')}</b> <span class="says">${esc(f.says)}</span></div>
<div class="comment-metadata"><a href="#comment-${2200 + i}"><time datetime="2024-05-03">${esc(comment.args[1] ?? '')}</time></a></div></footer>
<div class="comment-content">${md(comment)}</div>
<div class="reply"><a rel="nofollow" class="comment-reply-link" href="?replytocom=${2200 + i}#respond">${esc(f.reply)}</a></div>
</article></li>`).join('\n')}
</ol>
<div id="respond" class="comment-respond"><h3 id="reply-title" class="comment-reply-title">${esc(f.leaveReply)}</h3><form action="/wp-comments-post.php" method="post" id="commentform" class="comment-form"><p class="comment-notes">Your email address will not be published. Required fields are marked *</p><textarea id="comment" name="comment"></textarea><input name="submit" type="submit" value="Post Comment"></form></div>
</div>` : ''}
</main></div>
<aside id="secondary" class="widget-area" aria-label="Sidebar">
<section id="search-2" class="widget widget_search"><form role="search" method="get" class="search-form"><input type="search" class="search-field" name="s"></form></section>
<section id="recent-posts-2" class="widget widget_recent_entries"><h2 class="widget-title">${esc(f.recentPosts)}</h2><ul>${teaserLinks(related)}</ul></section>
<section id="archives-2" class="widget widget_archive"><h2 class="widget-title">Archives</h2><ul><li><a href="/2024/05/">May 2024</a></li><li><a href="/2024/04/">April 2024</a></li><li><a href="/2024/03/">March 2024</a></li></ul></section>
${one(page, 'widget') ? `<section id="text-3" class="widget widget_text"><h2 class="widget-title">${esc(one(page, 'widget')!.args[0] ?? 'About')}</h2><div class="textwidget">${md(one(page, 'widget'))}</div></section>` : ''}
</aside>
</div>
<footer id="colophon" class="site-footer"><div class="site-info">© 2024 ${esc(page.site)}. ${esc(f.footer)} <span class="sep"> | </span><a href="https://wordpress.org/">Proudly powered by WordPress</a></div></footer>
</div>
${SCRIPTS}
</body></html>`;
  return { html, not: [f.cookie.slice(0, 60), f.leaveReply, 'Proudly powered by WordPress', 'Your email address will not be published', ...related.slice(0, 1)] };
};

/** A Docusaurus documentation page: top bar, long sidebar menu, breadcrumbs, table of contents, edit link, pager. */
const docsSidebar: Layout = (page) => {
  const main = one(page, 'main');
  const nav = lines(one(page, 'nav'));
  const headings = [...(main?.body ?? '').matchAll(/^## (.+)$/gm)].map((match) => match[1]!);
  const [previous = 'Introduction', next = 'Configuration'] = one(page, 'pager')?.args ?? [];
  const section = one(page, 'section')?.body ?? 'Guides';
  const html = `${head(page)}<body class="navigation-with-keyboard">
<div role="region" aria-label="Skip to main content"><a class="skipToContent_fXgn" href="#__docusaurus_skipToContent_fallback">Skip to main content</a></div>
<div class="theme-announcement-bar announcementBar_mb4j" role="banner"><div class="content_knG7 announcementBarContent_xLdY">⭐️ If you like ${esc(page.site)}, give it a star on <a target="_blank" rel="noopener noreferrer" href="https://github.com/example/${slug(page.site)}">GitHub</a>!</div></div>
<nav aria-label="Main" class="navbar navbar--fixed-top"><div class="navbar__inner"><div class="navbar__items"><a class="navbar__brand" href="/"><b class="navbar__title text--truncate">${esc(page.site)}</b></a><a aria-current="page" class="navbar__item navbar__link navbar__link--active" href="/docs/intro">Docs</a><a class="navbar__item navbar__link" href="/api">API</a><a class="navbar__item navbar__link" href="/blog">Blog</a><a class="navbar__item navbar__link" href="/community">Community</a></div>
<div class="navbar__items navbar__items--right"><div class="navbar__item dropdown dropdown--hoverable dropdown--right"><a class="navbar__link" href="#">v3.2</a></div><a href="https://github.com/example/${slug(page.site)}" class="navbar__item navbar__link header-github-link" aria-label="GitHub repository"></a><div class="navbarSearchContainer_Bca1"><button type="button" class="DocSearch DocSearch-Button" aria-label="Search">Search</button></div></div></div></nav>
<div id="__docusaurus_skipToContent_fallback" class="main-wrapper mainWrapper_z2l0">
<div class="docsWrapper_hBAB"><div class="docRoot_UBD9">
<aside class="theme-doc-sidebar-container docSidebarContainer_YfHR"><div class="sidebarViewport_aRkj"><div class="sidebar_njMd"><nav aria-label="Docs sidebar" class="menu thin-scrollbar menu_SIkG">
<ul class="theme-doc-sidebar-menu menu__list">${nav.map((item) => `<li class="theme-doc-sidebar-item-link menu__list-item"><a class="menu__link${item === page.title ? ' menu__link--active' : ''}" href="/docs/${slug(item)}">${esc(item)}</a></li>`).join('\n')}</ul>
</nav></div></div></aside>
<main class="docMainContainer_TBSr"><div class="container padding-top--md padding-bottom--lg"><div class="row"><div class="col docItemCol_VOVn"><div class="docItemContainer_Djhp"><article>
<nav class="theme-doc-breadcrumbs breadcrumbsContainer_Z_bl" aria-label="Breadcrumbs"><ul class="breadcrumbs"><li class="breadcrumbs__item"><a aria-label="Home page" class="breadcrumbs__link" href="/">🏠</a></li><li class="breadcrumbs__item"><span class="breadcrumbs__link">${esc(section)}</span></li><li class="breadcrumbs__item breadcrumbs__item--active"><span class="breadcrumbs__link">${esc(page.title)}</span></li></ul></nav>
<span class="theme-doc-version-badge badge badge--secondary">Version: 3.2</span>
<div class="tocCollapsible_ETCw theme-doc-toc-mobile tocMobile_ITEo"><button type="button" class="clean-btn tocCollapsibleButton_TO0P">On this page</button></div>
<div class="theme-doc-markdown markdown"><header><h1>${esc(page.title)}</h1></header>
${md(main).replace(/<h2>(.*?)<\/h2>/g, (_m, text: string) => `<h2 class="anchor anchorWithStickyNavbar_LWe7" id="${slug(text)}">${text}<a href="#${slug(text)}" class="hash-link" aria-label="Direct link to ${text}" title="Direct link to ${text}">​</a></h2>`)}
</div>
</article>
<footer class="theme-doc-footer docusaurus-mt-lg"><div class="theme-doc-footer-edit-meta-row row"><div class="col"><a href="https://github.com/example/${slug(page.site)}/edit/main/docs/${slug(page.title)}.md" target="_blank" rel="noopener noreferrer" class="theme-edit-this-page">Edit this page</a></div><div class="col lastUpdated_JAkA"><span class="theme-last-updated">Last updated on <b><time datetime="2026-02-11T09:12:00.000Z">Feb 11, 2026</time></b></span></div></div></footer>
</div>
<nav class="pagination-nav docusaurus-mt-lg" aria-label="Docs pages"><a class="pagination-nav__link pagination-nav__link--prev" href="/docs/${slug(previous)}"><div class="pagination-nav__sublabel">Previous</div><div class="pagination-nav__label">${esc(previous)}</div></a><a class="pagination-nav__link pagination-nav__link--next" href="/docs/${slug(next)}"><div class="pagination-nav__sublabel">Next</div><div class="pagination-nav__label">${esc(next)}</div></a></nav>
</div>
<div class="col col--3"><div class="tableOfContents_bqdL thin-scrollbar theme-doc-toc-desktop"><ul class="table-of-contents table-of-contents__left-border">${headings.map((heading) => `<li><a href="#${slug(heading)}" class="table-of-contents__link toc-highlight">${inline(heading)}</a></li>`).join('')}</ul></div></div>
</div></div></main>
</div></div></div>
<footer class="footer footer--dark"><div class="container container-fluid"><div class="row footer__links"><div class="col footer__col"><div class="footer__title">Docs</div><ul class="footer__items clean-list"><li class="footer__item"><a class="footer__link-item" href="/docs/intro">Tutorial</a></li></ul></div><div class="col footer__col"><div class="footer__title">Community</div><ul class="footer__items clean-list"><li class="footer__item"><a href="https://discord.example" class="footer__link-item">Discord</a></li><li class="footer__item"><a href="https://forum.example" class="footer__link-item">Forum</a></li></ul></div></div>
<div class="footer__bottom text--center"><div class="footer__copyright">Copyright © 2026 ${esc(page.site)} contributors. Built with Docusaurus.</div></div></div></footer>
${SCRIPTS}
</body></html>`;
  return { html, not: ['give it a star on', 'Edit this page', 'Built with Docusaurus', 'Last updated on', ...(nav.filter((item) => item !== page.title).slice(-1))] };
};

/** A Sphinx page in the Read the Docs theme: side menu, breadcrumbs, permalink pilcrows, footer buttons. */
const docsSphinx: Layout = (page) => {
  const nav = lines(one(page, 'nav'));
  const [previous = 'Installation', next = 'API reference'] = one(page, 'pager')?.args ?? [];
  const body = md(one(page, 'main')).replace(/<h([23])>(.*?)<\/h\1>/g, (_m, level: string, text: string) => `<section id="${slug(text)}"><h${level}>${text}<a class="headerlink" href="#${slug(text)}" title="Link to this heading">¶</a></h${level}>`);
  const opened = (body.match(/<section /g) ?? []).length;
  const html = `${head(page)}<body class="wy-body-for-nav">
<div class="wy-grid-for-nav">
<nav data-toggle="wy-nav-shift" class="wy-nav-side"><div class="wy-side-scroll"><div class="wy-side-nav-search"><a href="index.html" class="icon icon-home">${esc(page.site)}</a><div class="version">latest</div>
<div role="search"><form id="rtd-search-form" class="wy-form" action="search.html" method="get"><input type="text" name="q" placeholder="Search docs" aria-label="Search docs"></form></div></div>
<div class="wy-menu wy-menu-vertical" data-spy="affix" role="navigation" aria-label="Navigation menu"><p class="caption" role="heading"><span class="caption-text">Contents</span></p><ul class="current">${nav.map((item) => `<li class="toctree-l1${item === page.title ? ' current' : ''}"><a class="reference internal${item === page.title ? ' current' : ''}" href="${slug(item)}.html">${esc(item)}</a></li>`).join('\n')}</ul></div>
</div></nav>
<section data-toggle="wy-nav-shift" class="wy-nav-content-wrap"><nav class="wy-nav-top" aria-label="Mobile navigation menu"><i data-toggle="wy-nav-top" class="fa fa-bars"></i><a href="index.html">${esc(page.site)}</a></nav>
<div class="wy-nav-content"><div class="rst-content">
<div role="navigation" aria-label="Page navigation"><ul class="wy-breadcrumbs"><li><a href="index.html" class="icon icon-home" aria-label="Home"></a></li><li class="breadcrumb-item active">${esc(page.title)}</li><li class="wy-breadcrumbs-aside"><a href="_sources/${slug(page.title)}.rst.txt" rel="nofollow"> View page source</a></li></ul><hr></div>
<div role="main" class="document" itemscope="itemscope" itemtype="http://schema.org/Article"><div itemprop="articleBody">
<section id="${slug(page.title)}"><h1>${esc(page.title)}<a class="headerlink" href="#${slug(page.title)}" title="Link to this heading">¶</a></h1>
${body}
${'</section>'.repeat(opened)}</section>
</div></div>
<footer><div class="rst-footer-buttons" role="navigation" aria-label="Footer"><a href="${slug(previous)}.html" class="btn btn-neutral float-left" title="${esc(previous)}" accesskey="p" rel="prev"><span class="fa fa-arrow-circle-left" aria-hidden="true"></span> Previous</a><a href="${slug(next)}.html" class="btn btn-neutral float-right" title="${esc(next)}" accesskey="n" rel="next">Next <span class="fa fa-arrow-circle-right" aria-hidden="true"></span></a></div>
<hr><div role="contentinfo"><p>© Copyright 2026, the ${esc(page.site)} developers.</p></div>Built with <a href="https://www.sphinx-doc.org/">Sphinx</a> using a <a href="https://github.com/readthedocs/sphinx_rtd_theme">theme</a> provided by <a href="https://readthedocs.org">Read the Docs</a>.</footer>
</div></div></section></div>
${SCRIPTS}
</body></html>`;
  return { html, not: ['View page source', 'using a theme provided by', ...(nav.filter((item) => item !== page.title).slice(-1))] };
};

/** An MDN-style reference page: many short blocks (syntax, parameters, return value, tables), quick links, in-page TOC. */
const docsReference: Layout = (page) => {
  const main = one(page, 'main');
  const nav = lines(one(page, 'nav'));
  const headings = [...(main?.body ?? '').matchAll(/^## (.+)$/gm)].map((match) => match[1]!);
  const group = one(page, 'section')?.body ?? 'Web APIs';
  const html = `${head(page)}<body>
<div class="page-wrapper category-api document-page">
<div class="top-navigation-wrap"><header class="top-navigation"><div class="container"><div class="top-navigation-main"><a href="/" class="logo" aria-label="${esc(page.site)} homepage">${esc(page.site)}</a>
<nav class="main-nav" aria-label="Main menu"><ul class="main-menu nojs"><li class="top-level-entry-container"><button class="top-level-entry menu-toggle">References</button><a href="/docs/web" class="top-level-entry">References</a></li><li class="top-level-entry-container"><a href="/docs/learn" class="top-level-entry">Guides</a></li><li class="top-level-entry-container"><a href="/plus" class="top-level-entry">Plus</a></li><li class="top-level-entry-container"><a href="/blog/" class="top-level-entry">Blog</a></li><li class="top-level-entry-container"><a href="/play" class="top-level-entry">Playground</a></li></ul></nav>
<div class="header-search"><form action="/search" class="search-form search-widget" role="search"><input type="search" name="q" class="search-input-field" placeholder="   " aria-label="Search the site"></form></div></div></div></header>
<div class="article-actions-container"><div class="container"><nav class="breadcrumbs-container" aria-label="breadcrumbs"><ol typeof="BreadcrumbList" vocab="https://schema.org/" aria-label="breadcrumbs"><li property="itemListElement" typeof="ListItem"><a href="/docs/web" class="breadcrumb" property="item" typeof="WebPage"><span property="name">References</span></a></li><li property="itemListElement" typeof="ListItem"><a href="/docs/web/api" class="breadcrumb" property="item"><span property="name">${esc(group)}</span></a></li><li property="itemListElement" typeof="ListItem"><a href="#" class="breadcrumb-current-page" property="item"><span property="name">${esc(page.title)}</span></a></li></ol></nav></div></div></div>
<div class="main-wrapper">
<div class="sidebar-container"><aside id="sidebar-quicklinks" class="sidebar"><nav aria-label="Related Topics" class="sidebar-inner"><div class="sidebar-body"><ol><li class="section"><a href="/docs/web/api/${slug(group)}">${esc(group)}</a></li><li class="toggle"><details open><summary>Related pages</summary><ol>${nav.map((item) => `<li><a href="/docs/web/api/${slug(item)}"><code>${esc(item)}</code></a></li>`).join('')}</ol></details></li></ol></div></nav></aside></div>
<div class="toc-container"><aside class="toc"><nav><div class="document-toc-container"><section class="document-toc"><header><h2 class="document-toc-heading">In this article</h2></header><ul class="document-toc-list">${headings.map((heading) => `<li class="document-toc-item"><a class="document-toc-link" href="#${slug(heading)}">${inline(heading)}</a></li>`).join('')}</ul></section></div></nav></aside></div>
<main id="content" class="main-content" role="main"><article class="main-page-content" lang="${page.lang}"><header><h1>${esc(page.title)}</h1><details class="baseline-indicator high"><summary><span class="indicator" role="img" aria-label="Baseline Check"></span><h2>Baseline <span class="not-bold">Widely available</span></h2><div class="status-title">This feature is well established and works across many devices and browser versions.</div></summary></details></header>
<div class="section-content">${md(main).replace(/<h2>(.*?)<\/h2>/g, (_m, text: string) => `</div><section aria-labelledby="${slug(text)}"><h2 id="${slug(text)}"><a href="#${slug(text)}">${text}</a></h2><div class="section-content">`)}</div>
<aside class="metadata"><div class="metadata-content-container"><div id="on-github" class="on-github"><h3>Help improve ${esc(page.site)}</h3><p><a href="/docs/contribute">Learn how to contribute</a>.</p></div><p class="last-modified-date">This page was last modified on <time datetime="2026-01-19T08:05:46.000Z">Jan 19, 2026</time> by <a href="/docs/${slug(page.title)}/contributors.txt">${esc(page.site)} contributors</a>.</p><a class="view-on-github" href="https://github.com/example/content/blob/main/files/${slug(page.title)}/index.md">View this page on GitHub</a> • <a class="view-on-github" href="https://github.com/example/content/issues/new">Report a problem with this content</a></div></aside>
</article></main></div>
<footer id="nav-footer" class="page-footer"><div class="page-footer-grid"><div class="page-footer-logo-col"><a href="/" class="mdn-footer-logo" aria-label="homepage">${esc(page.site)}</a><p>Your blueprint for a better internet.</p></div><div class="page-footer-nav-col-1"><h2 class="footer-nav-heading">${esc(page.site)}</h2><ul class="footer-nav-list"><li class="footer-nav-item"><a href="/about">About</a></li><li class="footer-nav-item"><a href="/blog/">Blog</a></li><li class="footer-nav-item"><a href="/careers">Careers</a></li><li class="footer-nav-item"><a href="/advertising">Advertise with us</a></li></ul></div>
<div class="page-footer-legal"><p id="license" class="page-footer-legal-text">Visit Example Corporation’s not-for-profit parent, the Example Foundation. Portions of this content are ©1998–2026 by individual contributors. Content available under a Creative Commons license.</p></div></div></footer>
</div>
${SCRIPTS}
</body></html>`;
  return { html, not: ['Your blueprint for a better internet', 'Help improve', 'Report a problem with this content', 'In this article', ...(nav.filter((item) => item !== page.title).slice(-1))] };
};

/** A news site: consent banner, menu, ticker, lead, share bar, inline teaser, related teasers, most read, newsletter box. */
const newsPortal: Layout = (page) => {
  const f = furniture(page.lang);
  const related = lines(one(page, 'related'));
  const mostRead = lines(one(page, 'mostread'));
  const lead = one(page, 'lead');
  const byline = one(page, 'byline')?.body ?? '';
  const body = md(one(page, 'main'));
  // The inline teaser goes after the second paragraph, where news sites put it.
  let count = 0;
  const withTeaser = related.length ? body.replace(/<\/p>/g, (close) => (++count === 2 ? `${close}\n<div class="inline-teaser"><span class="inline-teaser__label">${esc(f.readAlso)}</span> <a href="/${slug(related[0]!)}">${esc(related[0]!)}</a></div>` : close)) : body;
  const html = `${head(page, '<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":' + JSON.stringify(page.title) + '}</script>\n')}<body class="page-article">
<div id="sp_message_container_884" class="message-container"><div class="message type-modal"><div class="message-component message-row"><p class="message-component message-text">${esc(f.cookie)}</p><button class="message-component message-button">${esc(f.accept)}</button></div></div></div>
<header class="site-header"><div class="top-bar"><span class="top-bar__date">${esc(one(page, 'date')?.body ?? '')}</span> <a href="/login" class="top-bar__login">${esc(f.login)}</a></div>
<a class="site-logo" href="/">${esc(page.site)}</a>
<nav class="main-nav" aria-label="Sections">${navList(f.nav)}</nav></header>
${mostRead.length ? `<div class="ticker"><strong class="ticker__label">+++</strong> <a href="/${slug(mostRead[0]!)}">${esc(mostRead[0]!)}</a></div>` : ''}
<div class="page-layout"><main class="content-main">
<article class="article">
<div class="article-header"><span class="article-kicker">${esc(one(page, 'kicker')?.body ?? '')}</span><h1 class="article-title">${esc(page.title)}</h1>
${lead ? `<p class="article-lead">${inline(lead.body)}</p>` : ''}
<div class="article-meta"><span class="article-author">${esc(byline)}</span> <time datetime="2026-03-02T07:14:00+01:00">${esc(one(page, 'date')?.body ?? '')}</time></div>
<div class="share-buttons"><a href="https://www.facebook.com/sharer/sharer.php" class="share-buttons__item">Facebook</a> <a href="https://x.com/intent/tweet" class="share-buttons__item">X</a> <a href="whatsapp://send" class="share-buttons__item">WhatsApp</a> <a href="mailto:?subject=" class="share-buttons__item">E-Mail</a></div></div>
${one(page, 'image') ? `<figure class="article-image"><img src="/images/${slug(page.title)}.jpg" alt="${esc(one(page, 'image')!.body)}"><figcaption>${esc(one(page, 'image')!.body)} <span class="credit">Photo: Agency</span></figcaption></figure>` : ''}
<div class="article-body">
${withTeaser}
</div>
</article>
${related.length > 1 ? `<section class="more-articles" aria-label="${esc(f.related)}"><h2 class="section-title">${esc(f.related)}</h2><div class="teaser-grid">${related.slice(1).map((title) => `<div class="teaser-card"><a href="/${slug(title)}" class="teaser-card__link"><img class="lazy" data-src="/t/${slug(title)}.jpg" alt=""><h3 class="teaser-card__title">${esc(title)}</h3></a></div>`).join('\n')}</div></section>` : ''}
</main>
<aside class="sidebar">${mostRead.length ? `<div class="box box--most-read"><h2 class="box__title">${esc(f.mostRead)}</h2><ol>${teaserLinks(mostRead)}</ol></div>` : ''}
<div class="box box--newsletter"><p>${esc(f.newsletter)}</p><form><input type="email"><button>OK</button></form></div></aside></div>
<footer class="site-footer">${navList(f.nav.slice(1, 6), 'footer-links')}<p class="site-footer__copyright">© 2026 ${esc(page.site)}. ${esc(f.footer)}</p></footer>
${SCRIPTS}
</body></html>`;
  return { html, not: [f.cookie.slice(0, 50), f.newsletter.slice(0, 50), f.footer, ...related.slice(0, 2), ...mostRead.slice(0, 1)] };
};

/**
 * A CJK portal: dense menus of short links, the article in a div of <p> (Chinese with full-width
 * indentation) or text broken by <br><br> (Korean portals), an editor line, a ranking box.
 */
const cjkPortal: Layout = (page) => {
  const f = furniture(page.lang);
  const related = lines(one(page, 'related'));
  const ranking = lines(one(page, 'mostread'));
  const style: ParagraphStyle = page.lang === 'ko' ? 'br' : 'p';
  let body = md(one(page, 'main'), style);
  if (page.lang === 'zh') body = body.replace(/<p>/g, '<p>　　');
  const editor = one(page, 'editor')?.body ?? '';
  const html = `${head(page)}<body>
<div class="top-links"><div class="w1000"><a href="/">${esc(page.site)}</a> | <a href="/app">App</a> | <a href="/weibo">${esc(f.nav[0]!)}</a> <span class="login"><a href="/login">${esc(f.login)}</a></span></div></div>
<div class="header w1000"><div class="logo"><a href="/"><img src="/logo.png" alt="${esc(page.site)}"></a></div>
<div class="nav">${navList(f.nav, 'nav-list')}</div><div class="subnav">${navList([...f.nav.slice(2), ...f.nav.slice(0, 3)].map((item) => item + (page.lang === 'ja' ? '速報' : page.lang === 'ko' ? '속보' : '快讯')), 'subnav-list')}</div></div>
<div class="w1000 clearfix">
<div class="crumbs"><a href="/">${esc(f.nav[0]!)}</a> &gt; <a href="/${slug(f.nav[4]!)}">${esc(f.nav[4]!)}</a> &gt; 正文</div>
<div class="main-left" id="main-left">
<div class="article-box">
<h1 class="main-title">${esc(page.title)}</h1>
<div class="date-source"><span class="date">${esc(one(page, 'date')?.body ?? '')}</span> <span class="source">${esc(page.site)}</span></div>
<div class="article-content" id="artibody">
${body}
${editor ? `<p class="article-editor">${esc(editor)}</p>` : ''}
</div>
<div class="share-box"><span>${page.lang === 'zh' ? '分享到：' : page.lang === 'ja' ? 'シェアする' : '공유하기'}</span><a href="#">微博</a><a href="#">LINE</a><a href="#">Facebook</a></div>
</div>
${related.length ? `<div class="related-news"><h2 class="blk-title">${esc(f.related)}</h2><ul>${teaserLinks(related)}</ul></div>` : ''}
</div>
<div class="main-right">${ranking.length ? `<div class="rank-box"><h2 class="blk-title">${esc(f.mostRead)}</h2><ol class="rank-list">${ranking.map((title, i) => `<li><em>${i + 1}</em><a href="/${slug(title)}">${esc(title)}</a></li>`).join('')}</ol></div>` : ''}
<div class="ad-box"><a href="https://ads.example/click"><img src="/ad/300x250.jpg" alt="広告"></a></div></div>
</div>
<div class="footer"><p>${navList(f.nav.slice(0, 4), 'foot-links')}</p><p>${esc(f.footer)} Copyright © 2026 ${esc(page.site)}</p><p>${page.lang === 'zh' ? '京ICP备12345678号-1' : ''}</p></div>
<div class="cookie-bar" id="cookie-bar"><p>${esc(f.cookie)}</p><a class="cookie-bar__ok">${esc(f.accept)}</a></div>
${SCRIPTS}
</body></html>`;
  return { html, not: [f.footer, f.cookie.slice(0, 30), ...related.slice(0, 2), ...ranking.slice(0, 1)] };
};

/** A right-to-left (Arabic, Hebrew) news or blog page: dir=rtl, menus, "read also" boxes, most read, footer. */
const rtlPortal: Layout = (page) => {
  const f = furniture(page.lang);
  const related = lines(one(page, 'related'));
  const ranking = lines(one(page, 'mostread'));
  const body = md(one(page, 'main'));
  let count = 0;
  const withBox = related.length ? body.replace(/<\/p>/g, (close) => (++count === 3 ? `${close}<div class="read-also-box"><strong>${esc(f.readAlso)}</strong><ul>${teaserLinks(related.slice(0, 2))}</ul></div>` : close)) : body;
  const html = `${head(page)}<body class="rtl">
<header id="header"><div class="header-top"><a href="/" class="logo">${esc(page.site)}</a><div class="header-date">${esc(one(page, 'date')?.body ?? '')}</div><a href="/login" class="login-link">${esc(f.login)}</a></div>
<nav id="main-menu" class="main-menu">${navList(f.nav, 'menu-items')}</nav></header>
<div class="container"><div class="row">
<div class="col-md-8 article-column">
<div class="breadcrumb-bar"><a href="/">${esc(f.nav[0]!)}</a> / <a href="/${slug(f.nav[1]!)}">${esc(f.nav[1]!)}</a></div>
<div class="story">
<h1 class="story-title">${esc(page.title)}</h1>
${one(page, 'lead') ? `<h2 class="story-subtitle">${inline(one(page, 'lead')!.body)}</h2>` : ''}
<div class="story-info"><span class="writer">${esc(one(page, 'byline')?.body ?? '')}</span> <span class="date">${esc(one(page, 'date')?.body ?? '')}</span></div>
<div class="story-social"><a href="https://facebook.com/share">فيسبوك</a> <a href="https://x.com/share">X</a> <a href="https://wa.me/">واتساب</a></div>
<div class="story-text" id="story-text">
${withBox}
</div>
<div class="story-tags"><span>${esc(f.tagged)}:</span> <a href="/tag/1">${esc(f.nav[1]!)}</a> <a href="/tag/2">${esc(f.nav[3]!)}</a></div>
</div>
${related.length > 2 ? `<div class="more-stories"><h3>${esc(f.related)}</h3><ul>${teaserLinks(related.slice(2))}</ul></div>` : ''}
</div>
<div class="col-md-4 side-column">${ranking.length ? `<div class="most-read"><h3>${esc(f.mostRead)}</h3><ol>${teaserLinks(ranking)}</ol></div>` : ''}<div class="newsletter-box"><p>${esc(f.newsletter)}</p><form><input type="email"></form></div></div>
</div></div>
<footer id="footer"><div class="footer-menu">${navList(f.nav.slice(1, 5))}</div><p class="copyright">© 2026 ${esc(page.site)} — ${esc(f.footer)}</p></footer>
<div class="cookies-alert"><p>${esc(f.cookie)}</p><button>${esc(f.accept)}</button></div>
${SCRIPTS}
</body></html>`;
  return { html, not: [f.footer, f.newsletter.slice(0, 40), ...related.slice(0, 1), ...related.slice(2, 3), ...ranking.slice(0, 1)] };
};

/** A personal site or newsletter archive whose posts are link roundups: link-dense paragraphs and annotated link lists. */
const linkRoundup: Layout = (page) => {
  const f = furniture(page.lang);
  const related = lines(one(page, 'related'));
  const html = `${head(page)}<body class="layout-post">
<header class="site-header"><div class="wrapper"><a class="site-title" rel="author" href="/">${esc(page.site)}</a>
<nav class="site-nav"><div class="trigger"><a class="page-link" href="/about/">About</a><a class="page-link" href="/archive/">Archive</a><a class="page-link" href="/now/">Now</a><a class="page-link" href="/feed.xml">RSS</a></div></nav></div></header>
<main class="page-content" aria-label="Content"><div class="wrapper">
<article class="post h-entry" itemscope itemtype="http://schema.org/BlogPosting">
<header class="post-header"><h1 class="post-title p-name" itemprop="name headline">${esc(page.title)}</h1><p class="post-meta"><time class="dt-published" datetime="2026-02-27T10:00:00+00:00" itemprop="datePublished">${esc(one(page, 'date')?.body ?? '')}</time></p></header>
<div class="post-content e-content" itemprop="articleBody">
${md(one(page, 'main'))}
</div>
<a class="u-url" href="/${slug(page.title)}/" hidden></a>
</article>
<div class="newsletter-signup"><h3>Get the next issue by email</h3><p>${esc(f.newsletter)}</p><form action="https://buttondown.example/api/subscribe" method="post"><input type="email" name="email"><input type="submit" value="Subscribe"></form></div>
${related.length ? `<div class="related-posts"><h3>You might also enjoy</h3><ul>${teaserLinks(related)}</ul></div>` : ''}
</div></main>
<footer class="site-footer h-card"><div class="wrapper"><div class="footer-col-wrapper"><div class="footer-col"><ul class="contact-list"><li class="p-name">${esc(page.site)}</li><li><a class="u-email" href="mailto:hello@${slug(page.site)}.example">hello@${slug(page.site)}.example</a></li></ul></div>
<div class="footer-col"><ul class="social-media-list"><li><a href="https://mastodon.example/@me">Mastodon</a></li><li><a href="https://github.com/me">GitHub</a></li></ul></div><div class="footer-col"><p>Text licensed CC BY 4.0 unless stated otherwise. No trackers here.</p></div></div></div></footer>
${SCRIPTS}
</body></html>`;
  return { html, not: ['Get the next issue by email', 'No trackers here', f.newsletter.slice(0, 40), ...related.slice(0, 2)] };
};

/** A MediaWiki article: infobox, table of contents, link-rich paragraphs, references, navbox, categories, tool menus. */
const wiki: Layout = (page) => {
  const main = one(page, 'main')?.body ?? '';
  const infobox = lines(one(page, 'infobox'));
  const refs = lines(one(page, 'references'));
  const navbox = one(page, 'navbox');
  const categories = lines(one(page, 'categories'));
  const headings = [...main.matchAll(/^## (.+)$/gm)].map((match) => match[1]!);
  const firstHeading = main.search(/^## /m);
  const intro = firstHeading < 0 ? main : main.slice(0, firstHeading);
  const rest = firstHeading < 0 ? '' : main.slice(firstHeading);
  const heading = (html: string): string => html.replace(/<h([23])>(.*?)<\/h\1>/g, (_m, level: string, text: string) => `<div class="mw-heading mw-heading${level}"><h${level} id="${slug(text)}">${text}</h${level}><span class="mw-editsection"><span class="mw-editsection-bracket">[</span><a href="/w/index.php?action=edit&amp;section=1" title="Edit section: ${text}">edit</a><span class="mw-editsection-bracket">]</span></span></div>`);
  const withRefs = (html: string): string => html.replace(/\[(\d+)\]/g, (_m, n: string) => `<sup id="cite_ref-${n}" class="reference"><a href="#cite_note-${n}">[${n}]</a></sup>`);
  const html = `${head(page)}<body class="skin-vector mediawiki ltr sitedir-ltr mw-hide-empty-elt ns-0 ns-subject page-${slug(page.title)} rootpage-${slug(page.title)} action-view">
<div id="mw-page-base" class="noprint"></div><div id="mw-head-base" class="noprint"></div>
<div id="content" class="mw-body" role="main">
<a id="top"></a>
<div id="siteNotice"><div id="centralNotice"></div></div>
<h1 id="firstHeading" class="firstHeading mw-first-heading"><span class="mw-page-title-main">${esc(page.title)}</span></h1>
<div id="bodyContent" class="vector-body">
<div id="siteSub" class="noprint">From ${esc(page.site)}, the free encyclopedia</div>
<div id="contentSub"></div>
<div id="jump-to-nav"></div><a class="mw-jump-link" href="#mw-head">Jump to navigation</a> <a class="mw-jump-link" href="#searchInput">Jump to search</a>
<div id="mw-content-text" class="mw-body-content mw-content-ltr" lang="${page.lang}" dir="ltr"><div class="mw-parser-output">
${infobox.length ? `<table class="infobox vcard"><tbody><tr><th colspan="2" class="infobox-above">${esc(page.title)}</th></tr>${infobox.map((row) => { const [k = '', v = ''] = row.split(' | '); return `<tr><th scope="row" class="infobox-label">${inline(k)}</th><td class="infobox-data">${inline(v)}</td></tr>`; }).join('')}</tbody></table>` : ''}
${withRefs(renderMarkup(intro))}
${headings.length > 2 ? `<div id="toc" class="toc" role="navigation" aria-labelledby="mw-toc-heading"><input type="checkbox" role="button" id="toctogglecheckbox" class="toctogglecheckbox" style="display:none"><div class="toctitle" lang="en" dir="ltr"><h2 id="mw-toc-heading">Contents</h2></div><ul>${headings.map((text, i) => `<li class="toclevel-1 tocsection-${i + 1}"><a href="#${slug(text)}"><span class="tocnumber">${i + 1}</span> <span class="toctext">${inline(text)}</span></a></li>`).join('')}</ul></div>` : ''}
${heading(withRefs(renderMarkup(rest)))}
${refs.length ? `<div class="mw-heading mw-heading2"><h2 id="References">References</h2></div><div class="reflist"><div class="mw-references-wrap"><ol class="references">${refs.map((ref, i) => `<li id="cite_note-${i + 1}"><span class="mw-cite-backlink"><b><a href="#cite_ref-${i + 1}">^</a></b></span> <span class="reference-text">${inline(ref)}</span></li>`).join('')}</ol></div></div>` : ''}
${navbox ? `<div role="navigation" class="navbox" aria-labelledby="${slug(navbox.args[0] ?? 'nav')}"><table class="nowraplinks navbox-inner"><tbody><tr><th scope="col" class="navbox-title" colspan="2"><div id="${slug(navbox.args[0] ?? 'nav')}">${esc(navbox.args[0] ?? '')}</div></th></tr>${lines(navbox).map((row) => { const [group = '', items = ''] = row.split(' :: '); return `<tr><th scope="row" class="navbox-group">${esc(group)}</th><td class="navbox-list navbox-odd"><div><ul>${items.split(' · ').map((item) => `<li><a href="/wiki/${slug(item)}">${esc(item)}</a></li>`).join('')}</ul></div></td></tr>`; }).join('')}</tbody></table></div>` : ''}
</div></div>
<div id="catlinks" class="catlinks" data-mw="interface"><div id="mw-normal-catlinks" class="mw-normal-catlinks"><a href="/wiki/Help:Category" title="Help:Category">Categories</a>: <ul>${categories.map((cat) => `<li><a href="/wiki/Category:${slug(cat)}">${esc(cat)}</a></li>`).join('')}</ul></div></div>
</div></div>
<div id="mw-navigation"><h2>Navigation menu</h2>
<div id="mw-head"><nav id="p-personal" class="vector-menu" aria-labelledby="p-personal-label" role="navigation"><ul class="vector-menu-content-list"><li id="pt-createaccount"><a href="/w/index.php?title=Special:CreateAccount">Create account</a></li><li id="pt-login"><a href="/w/index.php?title=Special:UserLogin">Log in</a></li></ul></nav>
<div id="left-navigation"><nav id="p-namespaces" class="vector-menu vector-menu-tabs" role="navigation"><ul><li class="selected"><a href="/wiki/${slug(page.title)}">Article</a></li><li><a href="/wiki/Talk:${slug(page.title)}">Talk</a></li></ul></nav></div>
<div id="right-navigation"><nav id="p-views" class="vector-menu vector-menu-tabs" role="navigation"><ul><li class="selected"><a href="/wiki/${slug(page.title)}">Read</a></li><li><a href="/w/index.php?action=edit">Edit</a></li><li><a href="/w/index.php?action=history">View history</a></li></ul></nav><div id="p-search" role="search"><form action="/w/index.php" id="searchform"><input type="search" name="search" placeholder="Search ${esc(page.site)}" id="searchInput"></form></div></div></div>
<div id="mw-panel"><div id="p-logo" role="banner"><a class="mw-wiki-logo" href="/wiki/Main_Page" title="Visit the main page"></a></div>
<nav id="p-navigation" class="vector-menu vector-menu-portal portal" role="navigation"><h3 id="p-navigation-label">Navigation</h3><ul><li><a href="/wiki/Main_Page">Main page</a></li><li><a href="/wiki/Portal:Contents">Contents</a></li><li><a href="/wiki/Portal:Current_events">Current events</a></li><li><a href="/wiki/Special:Random">Random article</a></li><li><a href="/wiki/About">About ${esc(page.site)}</a></li></ul></nav>
<nav id="p-tb" class="vector-menu vector-menu-portal portal" role="navigation"><h3>Tools</h3><ul><li><a href="/wiki/Special:WhatLinksHere">What links here</a></li><li><a href="/wiki/Special:RecentChangesLinked">Related changes</a></li><li><a href="/wiki/Special:SpecialPages">Special pages</a></li><li><a href="/w/index.php?action=info">Page information</a></li><li><a href="/w/index.php?title=Special:CiteThisPage">Cite this page</a></li></ul></nav></div></div>
<footer id="footer" class="mw-footer" role="contentinfo"><ul id="footer-info"><li id="footer-info-lastmod"> This page was last edited on 3 March 2026, at 10:12<span class="anonymous-show"> (UTC)</span>.</li><li id="footer-info-copyright">Text is available under the <a href="https://creativecommons.org/licenses/by-sa/4.0/">Creative Commons Attribution-ShareAlike License 4.0</a>; additional terms may apply.</li></ul><ul id="footer-places"><li><a href="/wiki/Privacy_policy">Privacy policy</a></li><li><a href="/wiki/About">About ${esc(page.site)}</a></li><li><a href="/wiki/Disclaimers">Disclaimers</a></li></ul></footer>
${SCRIPTS}
</body></html>`;
  return { html, not: ['the free encyclopedia', 'This page was last edited on', 'What links here', 'Random article', ...categories.slice(0, 1)] };
};

/** A GOV.UK-style guide: cookie banner with prose, breadcrumbs, contents list, short blocks, related links, feedback prompt. */
const govGuide: Layout = (page) => {
  const main = one(page, 'main')?.body ?? '';
  const related = lines(one(page, 'related'));
  const headings = [...main.matchAll(/^## (.+)$/gm)].map((match) => match[1]!);
  const section = one(page, 'section')?.body ?? 'Benefits';
  const html = `${head(page)}<body class="govuk-template__body">
<div id="global-cookie-message" class="gem-c-cookie-banner govuk-clearfix" data-module="cookie-banner" role="region" aria-label="Cookies on ${esc(page.site)}"><div class="govuk-cookie-banner js-banner-wrapper" role="region" aria-label="Cookies on ${esc(page.site)}"><div class="gem-c-cookie-banner__message govuk-cookie-banner__message govuk-width-container"><div class="govuk-grid-row"><div class="govuk-grid-column-two-thirds"><h2 class="govuk-cookie-banner__heading govuk-heading-m">Cookies on ${esc(page.site)}</h2><div class="govuk-cookie-banner__content"><p class="govuk-body">We use some essential cookies to make this website work.</p><p class="govuk-body">We’d like to set additional cookies to understand how you use ${esc(page.site)}, remember your settings and improve public services.</p><p class="govuk-body">We also use cookies set by other sites to help us deliver content from their services.</p></div></div></div><div class="govuk-button-group"><button class="govuk-button" type="submit">Accept additional cookies</button><button class="govuk-button" type="submit">Reject additional cookies</button><a class="govuk-link" href="/help/cookies">View cookies</a></div></div></div></div>
<a href="#main-content" class="govuk-skip-link" data-module="govuk-skip-link">Skip to main content</a>
<header role="banner" class="gem-c-layout-super-navigation-header"><div class="gem-c-layout-super-navigation-header__container govuk-width-container govuk-clearfix"><a href="/" class="gem-c-header__link gem-c-header__link--homepage">${esc(page.site)}</a>
<nav aria-labelledby="super-navigation-menu-heading" class="gem-c-layout-super-navigation-header__content"><h2 id="super-navigation-menu-heading" class="govuk-visually-hidden">Navigation menu</h2><ul class="gem-c-layout-super-navigation-header__navigation-items"><li><a href="/browse/benefits">Benefits</a></li><li><a href="/browse/business">Business and self-employed</a></li><li><a href="/browse/driving">Driving and transport</a></li><li><a href="/browse/tax">Money and tax</a></li><li><a href="/browse/visas">Visas and immigration</a></li></ul></nav></div></header>
<div class="govuk-width-container">
<div class="gem-c-contextual-breadcrumbs"><nav class="gem-c-breadcrumbs govuk-breadcrumbs" aria-label="Breadcrumb"><ol class="govuk-breadcrumbs__list"><li class="govuk-breadcrumbs__list-item"><a class="govuk-breadcrumbs__link" href="/">Home</a></li><li class="govuk-breadcrumbs__list-item"><a class="govuk-breadcrumbs__link" href="/browse/${slug(section)}">${esc(section)}</a></li></ol></nav></div>
<main role="main" id="main-content" class="govuk-main-wrapper" lang="${page.lang}">
<div class="govuk-grid-row"><div class="govuk-grid-column-two-thirds">
<span class="govuk-caption-xl gem-c-title__context">${esc(section)}</span><h1 class="gem-c-title__text govuk-heading-l">${esc(page.title)}</h1>
${headings.length ? `<nav class="gem-c-contents-list" aria-label="Contents" role="navigation" data-module="gem-track-click"><h2 class="gem-c-contents-list__title">Contents</h2><ol class="gem-c-contents-list__list">${headings.map((text) => `<li class="gem-c-contents-list__list-item gem-c-contents-list__list-item--dashed"><span class="gem-c-contents-list__list-item-dash" aria-hidden="true"></span><a class="gem-c-contents-list__link govuk-link" href="#${slug(text)}">${inline(text)}</a></li>`).join('')}</ol></nav>` : ''}
<div class="gem-c-govspeak govuk-govspeak" data-module="govspeak"><div class="govspeak">
${renderMarkup(main).replace(/<h2>(.*?)<\/h2>/g, (_m, text: string) => `<h2 id="${slug(text)}">${text}</h2>`)}
</div></div>
<div class="gem-c-print-link govuk-!-display-none-print"><button class="govuk-link govuk-body-s gem-c-print-link__button">Print this page</button></div>
</div>
<div class="govuk-grid-column-one-third">${related.length ? `<aside class="gem-c-related-navigation govuk-!-display-none-print" role="complementary"><h2 id="related-nav-related_items" class="gem-c-related-navigation__main-heading">Related content</h2><nav class="gem-c-related-navigation__nav-section" aria-labelledby="related-nav-related_items"><ul class="gem-c-related-navigation__link-list">${teaserLinks(related, '/guidance/')}</ul></nav></aside>` : ''}</div></div>
<div class="gem-c-feedback govuk-!-display-none-print" data-module="feedback"><div class="gem-c-feedback__prompt gem-c-feedback__js-show" tabindex="-1"><div class="gem-c-feedback__prompt-content"><div class="gem-c-feedback__prompt-questions"><h2 class="gem-c-feedback__prompt-question">Is this page useful?</h2><a class="govuk-button gem-c-feedback__prompt-link" href="/contact/govuk">Yes</a> <a class="govuk-button gem-c-feedback__prompt-link" href="/contact/govuk">No</a></div><div class="gem-c-feedback__prompt-questions gem-c-feedback__prompt-questions--something-is-wrong"><a class="govuk-link gem-c-feedback__prompt-link" href="/contact/govuk/problem">Report a problem with this page</a></div></div></div></div>
</main></div>
<footer class="gem-c-layout-footer govuk-footer" role="contentinfo"><div class="govuk-width-container"><div class="govuk-footer__meta"><div class="govuk-footer__meta-item govuk-footer__meta-item--grow"><h2 class="govuk-visually-hidden">Support links</h2><ul class="govuk-footer__inline-list"><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help">Help</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help/privacy-notice">Privacy</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help/cookies">Cookies</a></li><li class="govuk-footer__inline-list-item"><a class="govuk-footer__link" href="/help/accessibility-statement">Accessibility statement</a></li></ul>
<span class="govuk-footer__licence-description">All content is available under the <a class="govuk-footer__link" href="/open-licence" rel="license">Open Licence v3.0</a>, except where otherwise stated</span></div><div class="govuk-footer__meta-item"><a class="govuk-footer__link govuk-footer__copyright-logo" href="/copyright">© Crown copyright</a></div></div></div></footer>
${SCRIPTS}
</body></html>`;
  return { html, not: ['We use some essential cookies to make this website work', 'Is this page useful?', 'All content is available under the', 'Business and self-employed', ...related.slice(0, 1)] };
};

/** A table-layout page from the early web: a menu column of links, text broken by <br><br>, a visitor counter. */
const plainOld: Layout = (page) => {
  const menu = lines(one(page, 'menu'));
  const html = `<html>
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>${esc(page.site)} - ${esc(page.title)}</title>
</head>
<body bgcolor="#ffffff" text="#000000" link="#003399" vlink="#660066">
<table width="100%" border="0" cellspacing="0" cellpadding="6">
<tr><td colspan="2" bgcolor="#003366"><font face="Arial" color="#ffffff" size="5"><b>${esc(page.site)}</b></font></td></tr>
<tr>
<td width="170" valign="top" bgcolor="#e8e8e8"><font face="Arial" size="2">
${menu.map((item) => `<a href="${slug(item)}.html">${esc(item)}</a><br>`).join('\n')}
<br><br>Last update: ${esc(one(page, 'updated')?.body ?? '12.03.2024')}<br>
<a href="guestbook.html">Guestbook</a>
</font></td>
<td valign="top"><font face="Verdana, Arial" size="2">
<font size="4"><b>${esc(page.title)}</b></font><br><br>
${md(one(page, 'main'), 'br')}
</font></td>
</tr>
<tr><td colspan="2" align="center"><font size="1" face="Arial">${esc(one(page, 'footer')?.body ?? '')} | <a href="impressum.html">Impressum</a> | Visitors since 1999: <img src="counter.gif" alt="counter"> 184332</font></td></tr>
</table>
</body>
</html>`;
  return { html, not: ['Visitors since 1999', 'Guestbook', ...(one(page, 'footer') ? [one(page, 'footer')!.body] : []), ...menu.slice(-1)] };
};

export const LAYOUTS: Record<string, Layout> = {
  'forum-table': forumTable,
  'forum-discourse': forumDiscourse,
  qa,
  'blog-comments': blogComments,
  'docs-sidebar': docsSidebar,
  'docs-sphinx': docsSphinx,
  'docs-reference': docsReference,
  'news-portal': newsPortal,
  'cjk-portal': cjkPortal,
  'rtl-portal': rtlPortal,
  'link-roundup': linkRoundup,
  wiki,
  'gov-guide': govGuide,
  'plain-old': plainOld,
};

