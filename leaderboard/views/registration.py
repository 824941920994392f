"""Sign-up with email verification, a login throttled after repeated failures, a limited password reset."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.contrib.auth.views import LoginView, PasswordResetConfirmView, PasswordResetView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from leaderboard.selectors.accounts import account_list_resettable
from leaderboard.services.policy.accounts import (
    account_activate,
    account_signup,
    account_verify,
    accounts_unverified_expire,
    password_reset_refusal,
)
from leaderboard.services.policy.logins import login_failed, login_refusal, login_succeeded
from leaderboard.services.policy.rate_limits import client_ip
from leaderboard.views.error_responses import with_retry_after


class SignupForm(UserCreationForm):
    email = forms.EmailField(max_length=254, help_text="We send a link to confirm it; also used for password resets.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        accounts_unverified_expire()  # frees the names and addresses of links nobody followed
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save(commit=False)
        user.email = form.cleaned_data["email"].strip()
        refusal = account_signup(user=user, ip=client_ip(request), base_url=request.build_absolute_uri("/"))
        if refusal is not None:
            messages.error(request, refusal.message)
            return with_retry_after(render(request, "registration/signup.html", {"form": form}, status=429), refusal)
        return render(request, "registration/verify_sent.html", {"email": user.email})
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


def verify_email(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    user = account_verify(uidb64=uidb64, token=token)
    if user is None:
        return render(request, "registration/verify_failed.html", status=400)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    messages.success(request, "Email confirmed: your account is active.")
    return redirect("home")


class ThrottledLoginView(LoginView):
    """Django's login; refused for a while after repeated failures (per username and per IP)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = request.POST.get("username") or ""
        refusal = login_refusal(username=username, ip=client_ip(request))
        if refusal is not None:
            form = self.get_form()
            page = self.render_to_response(self.get_context_data(form=form, refusal=refusal.message), status=429)
            return with_retry_after(page, refusal)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        login_succeeded(username=form.get_user().get_username())
        return super().form_valid(form)

    def form_invalid(self, form: Any) -> HttpResponse:
        # one answer for an unknown name, a wrong password and an unconfirmed account
        login_failed(username=self.request.POST.get("username") or "", ip=client_ip(self.request))
        return self.render_to_response(self.get_context_data(form=form), status=400)


class UnverifiedResetForm(PasswordResetForm):
    """Django's reset form; it also reaches an account whose address was never verified."""

    def get_users(self, email: str) -> Any:
        return account_list_resettable(email)


class LimitedPasswordResetView(PasswordResetView):
    """Django's reset request, limited per mailbox and per client (counted whether or not an account has it)."""

    form_class = UnverifiedResetForm

    def form_valid(self, form: Any) -> HttpResponse:
        refusal = password_reset_refusal(email=form.cleaned_data["email"], ip=client_ip(self.request))
        if refusal is not None:
            page = self.render_to_response(self.get_context_data(form=form, refusal=refusal.message), status=429)
            return with_retry_after(page, refusal)
        return super().form_valid(form)


class VerifyingPasswordResetConfirmView(PasswordResetConfirmView):
    """Django's new-password step; the link came by email, so an unverified account is verified by it."""

    def form_valid(self, form: Any) -> HttpResponse:
        if not form.user.is_active:
            account_activate(form.user)
        return super().form_valid(form)
