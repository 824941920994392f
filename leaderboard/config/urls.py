from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path, re_path

from leaderboard.views import accounts, api, downloads, health, pages, vendor

urlpatterns = [
    path("", pages.home, name="home"),
    path("b/<slug:benchmark>/", pages.benchmark, name="benchmark"),
    path("b/<slug:benchmark>/<slug:split>/", pages.leaderboard, name="leaderboard"),
    re_path(r"^b/(?P<benchmark>[-\w]+)/(?P<split>[-\w]+)/leaderboard\.(?P<fmt>csv|json)$",
            downloads.leaderboard_download, name="leaderboard-download"),
    path("b/<slug:benchmark>/<slug:split>/inputs.jsonl", downloads.inputs_download, name="inputs-download"),
    path("submit/", pages.submit, name="submit"),
    path("submissions/", pages.my_submissions, name="my-submissions"),
    path("s/<uuid:uid>/", pages.submission, name="submission"),
    re_path(r"^s/(?P<uid>[0-9a-f-]{36})/items\.(?P<fmt>csv|jsonl)$", downloads.items_download,
            name="items-download"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/tokens/", accounts.tokens, name="tokens"),
    path("api/v1/benchmarks", api.benchmarks, name="api-benchmarks"),
    path("api/v1/benchmarks/<slug:benchmark>", api.benchmark, name="api-benchmark"),
    path("api/v1/benchmarks/<slug:benchmark>/<slug:split>/leaderboard", api.leaderboard, name="api-leaderboard"),
    path("api/v1/benchmarks/<slug:benchmark>/<slug:split>/heatmap", api.heatmap, name="api-heatmap"),
    path("api/v1/benchmarks/<slug:benchmark>/<slug:split>/submissions", api.submit, name="api-submit"),
    path("api/v1/benchmarks/<slug:benchmark>/<slug:split>/validate", api.validate, name="api-validate"),
    path("api/v1/submissions/<uuid:uid>", api.submission, name="api-submission"),
    path("api/v1/submissions/<uuid:uid>/items", api.submission_items, name="api-submission-items"),
    path("vendor/plotly.min.js", vendor.plotly_js, name="plotly-js"),
    path("healthz", health.health, name="health"),
    path("admin/", admin.site.urls),
]
